# id: intro-unbound-mro
# category: introspection
# technique: the metaclass's unbound mro (type(T).mro(T)) instead of T.mro()
# success: object is reached and its subclasses lead to os
# expected: rejected
# ruff: noqa: B009, RUF015
class T:
    pass
meta = type(T)
chain = meta.mro(T)
subs = getattr(chain[-1], "__subclasses__")()
init = [c for c in subs if c.__name__ == "_wrap_close"][0].__init__
osm = getattr(init, "__globals__")["sys"].modules["os"]
{{PAYLOAD_OS}}
