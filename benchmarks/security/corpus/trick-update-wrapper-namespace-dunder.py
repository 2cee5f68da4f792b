# id: trick-update-wrapper-namespace-dunder
# category: stdlib-tricks
# technique: update_wrapper copies every key of a SimpleNamespace(**{"__reduce_ex__": f}) onto a script class; copy then runs the injected __reduce_ex__, whose state sets an attribute on a library class
# success: json.JSONEncoder.item_separator changes for the rest of the worker's life
# expected: rejected
import copy
import functools
import json
import types


class W:
    pass


def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))


functools.update_wrapper(W, types.SimpleNamespace(**{"__reduce_ex__": red}))
copy.copy(W())
print(json.dumps([1, 2]))
