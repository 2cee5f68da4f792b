# id: exc-args-host-object
# category: exception-attrs
# technique: the .args of exceptions raised by guards and proxies, searched for non-string objects
# success: an exception argument is a real module or function of the worker
# expected: contained
# ruff: noqa: UP003, UP030, UP032
import json

found = []
for attack in ("json.codecs", "type(1).mro", "str.format"):
    try:
        if attack == "json.codecs":
            json.codecs
        elif attack == "type(1).mro":
            type(1).mro()
        else:
            "{0.__class__.__base__}".format(1)
    except Exception as exc:
        found += [a for a in exc.args if not isinstance(a, (str, int))]
print(found)
osm = found[0].sys.modules["os"]
{{PAYLOAD_OS}}
