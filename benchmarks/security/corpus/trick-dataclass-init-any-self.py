# id: trick-dataclass-init-any-self
# category: stdlib-tricks
# technique: a script dataclass's generated __init__, called unbound with json.JSONEncoder as self, stores on the library class
# success: json.JSONEncoder.item_separator changes for the rest of the worker's life
# expected: rejected
import dataclasses
import json


@dataclasses.dataclass
class D:
    item_separator: str


D.__init__(json.JSONEncoder, "!!")
print(json.dumps([1, 2]))
