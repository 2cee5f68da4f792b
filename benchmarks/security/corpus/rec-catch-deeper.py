# id: rec-catch-deeper
# category: recursion
# technique: catch RecursionError and recurse again from the handler, deeper each time
# success: the C stack overflows and the next session fails
# expected: contained
def f(n):
    try:
        return f(n + 1)
    except RecursionError:
        return f(n + 1)
f(0)
