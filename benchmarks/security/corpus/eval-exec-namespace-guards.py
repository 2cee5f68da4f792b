# id: eval-exec-namespace-guards
# category: guard-shadowing
# technique: exec(src, ns) where the script rebinds the generated guard names in ns mid-run
# success: a library class attribute is changed through a guard the script replaced
# expected: contained
import json

ns = {"json": json}


def rebind():
    ns[".write"] = lambda o: o
    ns[".getattr"] = lambda o, n: getattr(o, n)
    ns[".match_class"] = lambda c: c


ns["rebind"] = rebind
exec("rebind()\njson.JSONEncoder.item_separator = '!!'", ns)
print(json.dumps([1, 2]))
