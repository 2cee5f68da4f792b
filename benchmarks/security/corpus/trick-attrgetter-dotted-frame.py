# id: trick-attrgetter-dotted-frame
# category: stdlib-tricks
# technique: operator.attrgetter("gi_frame.f_builtins") and itemgetter on the result
# success: the real builtins reach the script
# expected: rejected
import operator


def gen():
    yield 1
g = gen()
bi = operator.attrgetter("gi_frame.f_builtins")(g)
{{PAYLOAD_BUILTINS}}
