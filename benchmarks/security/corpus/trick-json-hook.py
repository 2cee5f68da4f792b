# id: trick-json-hook
# category: stdlib-tricks
# technique: json.loads(object_hook=...) and JSONDecoder internals (scan_once, parse_object) for host objects
# success: a decoder internal exposes a real module
# expected: rejected
import json

dec = json.JSONDecoder(object_hook=lambda d: d)
print(dec.scan_once)
parse = dec.parse_object
osm = getattr(parse, "__glob" + "als__")["re"].enum.sys.modules["os"]
{{PAYLOAD_OS}}
