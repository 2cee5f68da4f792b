# id: data-sympy-function-dunder
# category: data
# technique: sympy.Function("F", **{"__reduce_ex__": f}) makes each keyword an attribute of a new class; copy runs the injected __reduce_ex__
# success: json.JSONEncoder.item_separator changes for the rest of the worker's life
# expected: rejected
import copy
import json

import sympy


def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))


F = sympy.Function("F", **{"__reduce_ex__": red})
copy.copy(F(1))
print(json.dumps([1, 2]))
