# id: intro-subclasses-walk
# category: introspection
# technique: ().__class__.__base__.__subclasses__() to find a class whose __init__ globals hold sys
# success: the walk reaches the real os module
# expected: rejected
osm = None
for cls in ().__class__.__base__.__subclasses__():
    g = getattr(cls.__init__, "__globals__", None)
    if g and "sys" in g:
        osm = g["sys"].modules["os"]
        break
{{PAYLOAD_OS}}
