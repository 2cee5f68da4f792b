# id: ser-pickle-via-copyreg
# category: serialization
# technique: copyreg reached through the allowed copy module, then its reconstructor with a real callable
# success: a reconstructor call reaches a real module and creates the marker
# expected: rejected
# ruff: noqa: B009
import copy

g = getattr(copy.copy, "__globals__")
copyreg = g["copyreg"] if "copyreg" in g else g["__builtins__"]["__import__"]("copyreg")
osm = copyreg.sys.modules["os"] if hasattr(copyreg, "sys") else g["__builtins__"]["__import__"]("os")
{{PAYLOAD_OS}}
