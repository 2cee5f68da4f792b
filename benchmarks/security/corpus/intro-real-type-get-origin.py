# id: intro-real-type-get-origin
# category: introspection
# technique: typing.get_origin(typing.Type) is the real type; type(name, bases, dict) builds a class with __reduce_ex__, and copy sets an attribute on a library class
# success: the real type builds classes around the class statement's checks; copy stores on json.JSONEncoder
# expected: contained
# ruff: noqa: UP006
import copy
import json
import typing

t = typing.get_origin(typing.Type)


def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))


X = t("X", (), {"__reduce_ex__": red})
copy.copy(X())
print(json.dumps([1, 2]))
