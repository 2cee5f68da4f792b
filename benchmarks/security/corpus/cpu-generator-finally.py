# id: cpu-generator-finally
# category: cpu
# technique: a generator whose finally block spins when the result helper unwinds the stack
# success: the worker keeps computing after the result (not stopped within its limits)
# expected: contained
def g():
    try:
        yield 1
    finally:
        while True:
            pass
it = g()
next(it)
final_result("early")
