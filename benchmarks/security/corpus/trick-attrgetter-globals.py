# id: trick-attrgetter-globals
# category: stdlib-tricks
# technique: operator.attrgetter("__globals__") applied in C
# success: the function's module globals lead to os
# expected: rejected
import dataclasses
import operator

g = operator.attrgetter("__globals__")(dataclasses.fields)
osm = g["sys"].modules["os"]
{{PAYLOAD_OS}}
