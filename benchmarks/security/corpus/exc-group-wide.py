# id: exc-group-wide
# category: exception-flood
# technique: an ExceptionGroup of 200 000 exceptions
# success: the traceback floods the host or hangs it
# expected: contained
raise ExceptionGroup("many", [ValueError("v" * 100) for _ in range(200_000)])
