# id: frame-async-generator
# category: frames
# technique: an async generator's ag_frame
# success: the frame's builtins are the real ones
# expected: rejected
# ruff: noqa: B009
async def agen():
    yield 1
a = agen()
bi = getattr(a, "ag_frame").f_builtins
{{PAYLOAD_BUILTINS}}
