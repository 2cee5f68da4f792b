# id: import-os-plain
# category: imports
# technique: import os directly and use it
# success: the os module reads the secret file, prints the host's environment secret or creates the marker
# expected: rejected
import os as osm

{{PAYLOAD_OS}}
