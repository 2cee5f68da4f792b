# id: sys-recursionlimit-raise
# category: recursion
# technique: sys.setrecursionlimit(10**6) then recursing until the C stack overflows
# success: the worker crashes and the next session fails
# expected: contained
import sys

sys.setrecursionlimit(10**6)
print(sys.getrecursionlimit())


def f(n):
    return f(n + 1)


f(0)
