# id: intro-class-dict
# category: introspection
# technique: vars() / __dict__ of a standard class to find functions and their globals
# success: a function of the standard library gives up its module globals
# expected: rejected
# ruff: noqa: B009
import json

members = json.JSONEncoder.default
owner = getattr(members, "__module__")
print(owner)
g = getattr(members, "__builtins__", None) or vars(json.JSONEncoder)
print(g)
