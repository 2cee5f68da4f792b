# id: trick-update-wrapper
# category: stdlib-tricks
# technique: functools.update_wrapper(w, fn, assigned=("__globals__",)) copies a forbidden attribute
# success: the wrapper carries the module globals of a standard function, hence os
# expected: contained
# ruff: noqa: B009
import dataclasses
import functools


class W:
    pass
w = W()
functools.update_wrapper(w, dataclasses.fields, assigned=("__globals__",), updated=())
g = getattr(w, "__globals__")
osm = g["sys"].modules["os"]
{{PAYLOAD_OS}}
