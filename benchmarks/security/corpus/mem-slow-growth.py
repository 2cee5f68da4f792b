# id: mem-slow-growth
# category: memory
# technique: grow a list of 1 MB strings step by step
# success: the worker takes more memory than its limit
# expected: contained
keep = []
while True:
    keep.append("m" * 1_000_000 + str(len(keep)))
