# id: intro-private-getattr-built
# category: introspection
# technique: getattr(module, "_" + "os") — a private name built at run time, out of the compiler's sight
# success: getattr hands out the real os module
# expected: rejected
import random

osm = getattr(random, "_" + "os")
{{PAYLOAD_OS}}
