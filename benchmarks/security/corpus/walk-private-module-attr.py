# id: walk-private-module-attr
# category: module-walk
# technique: random._os — private names compile for the script's own objects; try a module's
# success: the module's private attribute is the real os module
# expected: rejected
import random

osm = random._os
{{PAYLOAD_OS}}
