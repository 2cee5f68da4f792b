# id: frame-generator-yield-walk
# category: frames
# technique: attrgetter on a running generator's own gi_frame.f_back (the caller) from inside it
# success: the caller's frames expose the real builtins
# expected: rejected
import operator


def gen():
    yield operator.attrgetter("gi_frame.f_back")(it)
it = gen()
frame = next(it)
while operator.attrgetter("f_back")(frame) is not None:
    frame = operator.attrgetter("f_back")(frame)
bi = operator.attrgetter("f_builtins")(frame)
{{PAYLOAD_BUILTINS}}
