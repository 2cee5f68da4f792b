# id: intro-type-of-proxy
# category: introspection
# technique: type() of a module proxy, then the proxy class's methods and their globals
# success: the proxy class's module globals hold the real modules it wraps
# expected: rejected
# ruff: noqa: B009
import json

try:
    osm = json.codecs.sys.modules["os"]
except AttributeError:
    P = type(json)
    g = getattr(P.__init__, "__globals__")
    osm = g["sys"].modules["os"]
{{PAYLOAD_OS}}
