# id: trick-copy-internals
# category: stdlib-tricks
# technique: copy.dispatch_table / copy's module globals — internals of the copy module
# success: copy's internals reach a real module
# expected: contained
# ruff: noqa: B009
import copy

table = copy.dispatch_table
print(len(table))
g = getattr(copy.deepcopy, "__globals__")
bi = g["__builtins__"]
{{PAYLOAD_BUILTINS}}
