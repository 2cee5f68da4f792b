# id: walk-class-init-globals
# category: module-walk
# technique: a standard class's readable __init__, then its __globals__ (name built at run time)
# success: the module globals of json.decoder hold re, hence sys and os
# expected: rejected
import json

init = json.JSONDecoder.__init__
g = getattr(init, "__" + "globals__")
osm = g["re"].enum.sys.modules["os"]
{{PAYLOAD_OS}}
