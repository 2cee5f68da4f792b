# id: trick-dataclass-factory
# category: stdlib-tricks
# technique: dataclasses.make_dataclass with a namespace and a field default that smuggles code
# success: the generated class exposes exec-built code with real globals
# expected: contained
import dataclasses

D = dataclasses.make_dataclass("D", [("x", int)], namespace={"hook": print})
print(D)
