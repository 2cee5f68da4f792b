# id: walk-private-subclass-base
# category: module-walk
# technique: a script subclass of random.Random owns private names; walk a base method's globals
# success: the base method's module globals lead to the real os module
# expected: rejected
import random


class R(random.Random):
    pass


osm = R(1)._randbelow.__globals__["_os"]
{{PAYLOAD_OS}}
