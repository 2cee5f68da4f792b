# id: trick-partial-reduce-getattr
# category: stdlib-tricks
# technique: functools.partial/reduce over getattr, so the lookup is made from C
# success: __globals__ of a standard function is returned
# expected: rejected
import dataclasses
import functools

g = functools.reduce(getattr, ["__globals__"], dataclasses.fields)
osm = functools.partial(getattr, g["sys"])("modules")["os"]
{{PAYLOAD_OS}}
