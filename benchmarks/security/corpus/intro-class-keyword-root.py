# id: intro-class-keyword-root
# category: introspection
# technique: class G(type(typing.List[int]), _root=True) subclasses typing's internal alias class; copy reads typing's globals through __reduce__
# success: the real __import__ imports the real os
# expected: rejected
# ruff: noqa: UP006
import copy
import typing


class G(type(typing.List[int]), _root=True):
    pass


imp = copy.copy(G(list, "__import__", name="__builtins__"))
osm = imp("os")
{{PAYLOAD_OS}}
