# id: exc-obj-getattr
# category: exception-attrs
# technique: getattr(exc, "obj") and operator.attrgetter("obj") on the AttributeError
# success: .obj is the real module behind the proxy
# expected: rejected
# ruff: noqa: B009
import json
import operator

try:
    osm = json.codecs.sys.modules["os"]
except AttributeError as exc:
    try:
        real = operator.attrgetter("obj")(exc)
    except Exception:
        real = getattr(exc, "obj")
    osm = real.codecs.sys.modules["os"]
{{PAYLOAD_OS}}
