# id: trick-inherited-init-any-self
# category: stdlib-tricks
# technique: G.__init__ for class G(json.JSONEncoder) is JSONEncoder.__init__; called unbound with the library class as self it stores separators on it
# success: json.JSONEncoder.item_separator changes for the rest of the worker's life
# expected: rejected
import json


class G(json.JSONEncoder):
    pass


G.__init__(json.JSONEncoder, separators=("!!", ":"))
print(json.dumps([1, 2]))
