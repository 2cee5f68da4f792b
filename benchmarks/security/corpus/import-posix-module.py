# id: import-posix-module
# category: imports
# technique: import posix (the C module behind os) under another name
# success: posix.open/read/environ/mkdir reach the host
# expected: rejected
import posix as osm

osm.environ = {k.decode(): v.decode() for k, v in osm.environ.items()}
{{PAYLOAD_OS}}
