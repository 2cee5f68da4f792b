# id: intro-partial-func-real-type
# category: introspection
# technique: native code stores a value no script may hold in an attribute of a library object (functools.partial(*map(get_origin, [Type])).func is the real type), then calls it as a method
# success: the real type builds a class from a namespace, around the class statement's checks
# expected: contained
# ruff: noqa: UP006
import functools
import typing

holder = functools.partial(*map(typing.get_origin, [typing.Type]))
X = holder.func("X", (), {"__getattribute__": lambda self, name: name})
print(X().anything)
