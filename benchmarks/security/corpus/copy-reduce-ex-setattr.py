# id: copy-reduce-ex-setattr
# category: stdlib-tricks
# technique: a __reduce_ex__ whose state makes copy set an attribute on a library class
# success: json.JSONEncoder.item_separator changes for the rest of the worker's life
# expected: rejected
import copy
import json


class R:
    def __reduce_ex__(self, proto):
        return ((lambda c: c), (json.JSONEncoder,), {"item_separator": "!!"})


copy.copy(R())
print(json.dumps([1, 2]))
