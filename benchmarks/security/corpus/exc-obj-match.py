# id: exc-obj-match
# category: exception-attrs
# technique: match exc: case AttributeError(obj=o) — the pattern reads .obj natively
# success: .obj is the real module behind the proxy
# expected: rejected
import json

try:
    osm = json.codecs.sys.modules["os"]
except AttributeError as exc:
    match exc:
        case AttributeError(obj=real):
            osm = real.codecs.sys.modules["os"]
{{PAYLOAD_OS}}
