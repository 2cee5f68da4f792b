# id: rec-python
# category: recursion
# technique: unbounded Python recursion
# success: the worker crashes the host or the next session fails
# expected: contained
def f(n):
    return f(n + 1)
f(0)
