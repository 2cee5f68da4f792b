# id: trick-abstractmethod-library
# category: stdlib-tricks
# technique: abc.abstractmethod, typing.final, no_type_check and dataclass_transform store a flag on the library function they are given
# success: json.dumps is marked abstract for the rest of the worker's life
# expected: rejected
# ruff: noqa: B024
import abc
import json
import typing

abc.abstractmethod(json.dumps)
typing.final(json.loads)
typing.no_type_check(json.loads)
typing.dataclass_transform()(json.loads)


class A(abc.ABC):
    f = json.dumps


A()
