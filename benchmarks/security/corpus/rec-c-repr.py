# id: rec-c-repr
# category: recursion
# technique: a list nested 10**6 deep built by a loop, then repr() and == in C
# success: the C stack overflows and the host or the next session fails
# expected: contained
x = []
for _ in range(1_000_000):
    x = [x]
print(len(repr(x)))
