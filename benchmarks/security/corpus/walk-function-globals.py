# id: walk-function-globals
# category: module-walk
# technique: the __globals__ of a standard-library function, with the name built at run time
# success: the function's module globals hold sys, hence os
# expected: rejected
import dataclasses

name = "__glob" + "als__"
g = getattr(dataclasses.fields, name)
osm = g["sys"].modules["os"]
{{PAYLOAD_OS}}
