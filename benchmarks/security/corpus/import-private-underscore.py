# id: import-private-underscore
# category: imports
# technique: from random import _os — an underscore-named import of an allowed module
# success: the private name is the real os module
# expected: rejected
from random import _os as osm

{{PAYLOAD_OS}}
