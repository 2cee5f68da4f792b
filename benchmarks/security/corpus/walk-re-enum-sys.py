# id: walk-re-enum-sys
# category: module-walk
# technique: re.enum.sys.modules — a module re imported for itself
# success: the walk ends at the real os module
# expected: contained
import re

osm = re.enum.sys.modules["os"]
{{PAYLOAD_OS}}
