# id: shadow-match-rest-annotations
# category: guard-shadowing
# technique: in a class body, case {**__annotations__} makes @dataclass create dunder fields (__reduce_ex__, __deepcopy__)
# success: copy calls the script's __reduce_ex__ field and stores on a library class; json.dumps changes
# expected: rejected
import copy
import dataclasses
import json


@dataclasses.dataclass
class D:
    match {"__deepcopy__": int, "__reduce_ex__": int}:
        case {**__annotations__}:
            pass


d = D(None, lambda proto: (copy.copy, (json.JSONEncoder,), (None, {"item_separator": "!!"})))
copy.copy(d)
print(json.dumps([1, 2]))
