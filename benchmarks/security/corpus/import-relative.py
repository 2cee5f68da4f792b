# id: import-relative
# category: imports
# technique: a relative import from the script's own package context
# success: the relative import yields the os module, which then reaches the host
# expected: rejected
from . import os as osm

{{PAYLOAD_OS}}
