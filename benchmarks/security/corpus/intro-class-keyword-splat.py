# id: intro-class-keyword-splat
# category: introspection
# technique: the _root class keyword passed through **{...}, where no compile-time keyword check sees it
# success: the real __import__ imports the real os
# expected: rejected
# ruff: noqa: UP006
import copy
import typing


class G(type(typing.List[int]), **{"_root": True}):
    pass


imp = copy.copy(G(list, "__import__", name="__builtins__"))
osm = imp("os")
{{PAYLOAD_OS}}
