# id: intro-mro
# category: introspection
# technique: type(x).mro() to reach object, then its subclasses
# success: object's subclasses lead to a real module
# expected: rejected
# ruff: noqa: B009, RUF015, UP003
top = type(1).mro()[-1]
subs = getattr(top, "__subclasses__")()
init = [c for c in subs if "wrap_close" in c.__name__][0].__init__
osm = getattr(init, "__globals__")["sys"].modules["os"]
{{PAYLOAD_OS}}
