# id: frame-generator-getattr
# category: frames
# technique: getattr(generator, "gi_" + "frame") with the attribute name built at run time
# success: the frame's builtins are the real ones
# expected: rejected
def gen():
    yield 1
g = gen()
next(g)
frame = getattr(g, "gi_" + "frame")
bi = getattr(frame, "f_" + "builtins")
{{PAYLOAD_BUILTINS}}
