# id: intro-real-type-by-callback
# category: introspection
# technique: native code hands the real type to script code without a call the script makes: map's results into a parameter, a for target, an unpacking, a match capture
# success: the script holds the real type and builds a class from a namespace
# expected: contained
# ruff: noqa: B007, B905, UP006
import typing


def take(t):
    return t("G", (), {"__getattribute__": lambda self, name: name})


for t in map(typing.get_origin, [typing.Type]):
    pass
(u,) = map(typing.get_origin, [typing.Type])
match dict(zip(["k"], map(typing.get_origin, [typing.Type]))):
    case {"k": v}:
        pass
print(t is type, u is type, v is type)
list(map(take, map(typing.get_origin, [typing.Type])))
