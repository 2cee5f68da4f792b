# id: import-importlib
# category: imports
# technique: importlib.import_module("os"), falling back to the spec loader
# success: importlib loads a real os module
# expected: rejected
import importlib

try:
    osm = importlib.import_module("os")
except Exception:
    import importlib.util
    spec = importlib.util.find_spec("os")
    osm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(osm)
{{PAYLOAD_OS}}
