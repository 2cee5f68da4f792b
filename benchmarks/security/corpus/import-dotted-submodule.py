# id: import-dotted-submodule
# category: imports
# technique: import json.tool to reach a real submodule, then walk its sys.modules to os
# success: the real os module reads the secret file, prints the environment secret or creates the marker
# expected: rejected
import json.tool

osm = json.tool.sys.modules["os"]
{{PAYLOAD_OS}}
