# id: trick-typeddict-kwdefaults
# category: stdlib-tricks
# technique: a TypedDict key "__kwdefaults__" becomes a dataclass field; the generated __init__ called on json.dumps replaces its keyword defaults
# success: json.dumps's defaults change for every later caller in the worker, the runtime included
# expected: rejected
import dataclasses
import json
import typing

T = typing.TypedDict("T", {"__kwdefaults__": dict})


@dataclasses.dataclass
class D(T):
    pass


D.__init__(json.dumps, {"separators": ("!!", ":")})
print(json.dumps([1, 2]))
