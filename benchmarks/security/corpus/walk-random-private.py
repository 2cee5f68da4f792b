# id: walk-random-private
# category: module-walk
# technique: random._os through getattr with a computed underscore name
# success: the private attribute is the real os module
# expected: rejected
import random

osm = getattr(random, "_" + "os")
{{PAYLOAD_OS}}
