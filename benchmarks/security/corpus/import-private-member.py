# id: import-private-member
# category: imports
# technique: from typing import sys — a module the allowed module imported for itself
# success: the module's private import (sys) leads to the real os module
# expected: contained
from typing import sys

osm = sys.modules["os"]
{{PAYLOAD_OS}}
