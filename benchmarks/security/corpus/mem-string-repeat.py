# id: mem-string-repeat
# category: memory
# technique: "x" * 10**11 and a huge dict comprehension
# success: the worker takes more memory than its limit
# expected: contained
try:
    s = "x" * 10**11
except MemoryError:
    d = {i: str(i) * 100 for i in range(10**9)}
