# id: intro-match-registered-abc
# category: introspection
# technique: script ABC dataclasses whose fields are gi_frame, f_back and f_globals register the generator and frame types, so case K(x) reads those attributes natively
# success: the frames lead to the worker's real builtins
# expected: rejected
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


found = []


def gen():
    KG.register(type(g))
    match g:
        case KG(frame):
            pass
    KB.register(type(frame))
    KL.register(type(frame))
    while frame is not None:
        match frame:
            case KL(glob):
                pass
        if str(glob.get("__name__", "")).startswith("sandbox"):
            found.append(glob["__builtins__"])
            break
        match frame:
            case KB(frame):
                pass
    yield 1


g = gen()
next(g)
bi = found[0]
{{PAYLOAD_BUILTINS}}
