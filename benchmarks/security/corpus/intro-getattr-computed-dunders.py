# id: intro-getattr-computed-dunders
# category: introspection
# technique: the same subclass walk with every dunder name built at run time for getattr
# success: the walk reaches the real os module
# expected: rejected
u = "_" * 2
base = getattr(type(()), u + "base" + u)
subs = getattr(base, u + "subclasses" + u)()
osm = None
for cls in subs:
    g = getattr(getattr(cls, u + "init" + u), u + "globals" + u, None)
    if g and "sys" in g:
        osm = g["sys"].modules["os"]
        break
{{PAYLOAD_OS}}
