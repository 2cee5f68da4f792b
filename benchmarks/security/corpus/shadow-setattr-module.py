# id: shadow-setattr-module
# category: guard-shadowing
# technique: setattr on a module proxy or a standard function to plant a hook
# success: the standard library is modified (a later session or the guards see the change)
# expected: contained
# ruff: noqa: B010
import json

setattr(json, "dumps", print)
json.loads = print
