# id: trick-generic-alias-setattr
# category: stdlib-tricks
# technique: a subclass of typing's internal alias class forwards attribute stores to its __origin__, a library class
# success: json.JSONEncoder.item_separator is changed for the rest of the worker's life
# expected: rejected
# ruff: noqa: UP006
import json
import typing


class G(type(typing.List[int]), _root=True):
    pass


G(json.JSONEncoder, int).item_separator = "!!"
print(json.dumps([1, 2]))
