# id: walk-json-codecs
# category: module-walk
# technique: json.codecs.sys.modules, then json.decoder.re.enum.sys as a second route
# success: either walk ends at the real os module
# expected: contained
import json

try:
    osm = json.codecs.sys.modules["os"]
except AttributeError:
    osm = json.decoder.re.enum.sys.modules["os"]
{{PAYLOAD_OS}}
