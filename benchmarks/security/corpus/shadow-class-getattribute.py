# id: shadow-class-getattribute
# category: guard-shadowing
# technique: a class whose __getattr__ returns a frame-bearing object, read with computed names
# success: the guard trusts the object's own lookup and hands out a frame
# expected: rejected
class Sneaky:
    def __getattr__(self, name):
        def gen():
            yield 1
        g = gen()
        next(g)
        return g
s = Sneaky()
g = s.anything
frame = getattr(g, "gi_" + "frame")
bi = getattr(frame, "f_" + "builtins")
{{PAYLOAD_BUILTINS}}
