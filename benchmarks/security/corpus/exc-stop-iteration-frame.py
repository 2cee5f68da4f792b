# id: exc-stop-iteration-frame
# category: exception-attrs
# technique: the exception a finished generator raises, then its traceback's frames
# success: the traceback reaches a frame with the real builtins
# expected: rejected
# ruff: noqa: B009
def gen():
    yield 1
g = gen()
next(g)
try:
    next(g)
except StopIteration as stop:
    tb = getattr(stop, "__traceback__")
    bi = tb.tb_frame.f_builtins
{{PAYLOAD_BUILTINS}}
