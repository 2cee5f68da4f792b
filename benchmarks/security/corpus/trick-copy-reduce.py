# id: trick-copy-reduce
# category: stdlib-tricks
# technique: copy.copy of an object whose __reduce__ returns (callable, args) run by copy itself
# success: copy calls a real callable on attacker arguments and hands back a module's globals
# expected: rejected
import copy
import dataclasses


class Evil:
    def __reduce__(self):
        return (getattr, (dataclasses.fields, "__globals__"))
g = copy.copy(Evil())
osm = g["sys"].modules["os"]
{{PAYLOAD_OS}}
