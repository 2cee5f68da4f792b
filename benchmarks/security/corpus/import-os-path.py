# id: import-os-path
# category: imports
# technique: import os.path, which binds the parent package os as a side effect
# success: the name os is bound to the real module
# expected: rejected
import os.path

osm = os
{{PAYLOAD_OS}}
