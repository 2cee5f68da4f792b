# id: exc-str-recursion
# category: exception-flood
# technique: an exception whose __str__ raises itself (and one that returns 100 MB)
# success: formatting the error crashes or hangs the sandbox for the next session
# expected: contained
# ruff: noqa: B904
class Loop(Exception):
    def __str__(self):
        raise Loop()
class Big(Exception):
    def __str__(self):
        return "b" * 100_000_000
try:
    raise Loop()
except Loop:
    raise Big()
