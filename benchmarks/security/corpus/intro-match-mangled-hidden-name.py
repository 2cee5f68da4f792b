# id: intro-match-mangled-hidden-name
# category: introspection
# technique: in a method, a walrus in a case guard rebinds the class pattern's hidden, name-mangled variable (_R__match_class_1_1) to an ABC whose __match_args__ names gi_frame/f_back/f_globals
# success: the frames lead to the worker's real builtins
# expected: contained
# ruff: noqa: B024
import abc
import dataclasses


@dataclasses.dataclass
class KG(abc.ABC):
    gi_frame: int = 0


@dataclasses.dataclass
class KB(abc.ABC):
    f_back: int = 0


@dataclasses.dataclass
class KL(abc.ABC):
    f_globals: int = 0


@dataclasses.dataclass
class Decoy:
    v: int = 0


class R:
    def read(self, obj, K):
        K.register(type(obj))
        match obj:
            case K() if (_R__match_class_1_1 := K) and False:
                pass
            case Decoy(v):
                return v


r = R()
found = []


def gen():
    frame = r.read(g, KG)
    while frame is not None:
        glob = r.read(frame, KL)
        if str(glob.get("__name__", "")).startswith("sandbox"):
            found.append(glob["__builtins__"])
            break
        frame = r.read(frame, KB)
    yield 1


g = gen()
next(g)
bi = found[0]
{{PAYLOAD_BUILTINS}}
