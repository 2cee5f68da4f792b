# id: exc-attribute-error-obj
# category: exception-attrs
# technique: AttributeError.obj after a failed lookup on a module proxy (the plain lookup first)
# success: .obj is the real module behind the proxy, which leads to os
# expected: rejected
import json

try:
    osm = json.codecs.sys.modules["os"]
except AttributeError as exc:
    real = exc.obj
    osm = real.codecs.sys.modules["os"]
{{PAYLOAD_OS}}
