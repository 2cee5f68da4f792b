# id: copy-getstate-dunder-state
# category: stdlib-tricks
# technique: copy fills a copy's __dict__ and slots from __getstate__'s value: a special name there (__class__ as slot state) becomes an attribute natively
# success: a script object becomes an instance of a library class (its class swapped by setattr)
# expected: rejected
import copy
import json


class C:
    def __getstate__(self):
        return (None, {"__class__": json.JSONEncoder})


y = copy.copy(C())
print(type(y).__name__)
