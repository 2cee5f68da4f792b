# id: frame-coroutine-cr-frame
# category: frames
# technique: a coroutine's cr_frame (async def, never awaited)
# success: the frame's builtins are the real ones
# expected: rejected
async def co():
    return 1
c = co()
bi = c.cr_frame.f_builtins
c.close()
{{PAYLOAD_BUILTINS}}
