# id: frame-generator-gi-frame
# category: frames
# technique: a generator's gi_frame, then f_back into the sandbox runtime's frames
# success: a frame's globals give the worker's real builtins
# expected: rejected
def gen():
    yield 1
g = gen()
next(g)
frame = g.gi_frame
while frame.f_back is not None and "builtins" not in frame.f_globals:
    frame = frame.f_back
bi = frame.f_globals.get("builtins") or frame.f_builtins
{{PAYLOAD_BUILTINS}}
