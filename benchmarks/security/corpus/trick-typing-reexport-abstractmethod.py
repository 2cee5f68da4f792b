# id: trick-typing-reexport-abstractmethod
# category: stdlib-tricks
# technique: typing's own import of abc.abstractmethod, reached as typing.abstractmethod past the replaced abc member, marks a library function
# success: json.dumps is marked abstract for the rest of the worker's life
# expected: contained
# ruff: noqa: B024
import abc
import json
import typing

typing.abstractmethod(json.dumps)


class A(abc.ABC):
    f = json.dumps


A()
