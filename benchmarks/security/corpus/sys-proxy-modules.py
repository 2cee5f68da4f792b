# id: sys-proxy-modules
# category: module-walk
# technique: the script's sys proxy: modules, _getframe, the real streams' descriptors
# success: sys.modules hands out the real os, or a frame reaches the real builtins
# expected: contained
import sys

for route in ("modules", "_getframe", "settrace", "__stdout__", "stdout.buffer"):
    try:
        obj = sys
        for part in route.split("."):
            obj = getattr(obj, part)
        print("GOT", route, obj)
    except Exception as exc:
        print("blocked:", route, type(exc).__name__)
osm = sys.modules["os"]
{{PAYLOAD_OS}}
