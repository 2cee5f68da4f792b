# id: exc-traceback-deep
# category: exception-flood
# technique: an exception raised at the bottom of the deepest allowed recursion, each frame printing
# success: the traceback floods the host
# expected: contained
def down(n):
    print(n)
    return down(n + 1)
down(0)
