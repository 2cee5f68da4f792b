# id: shadow-builtins-dict
# category: guard-shadowing
# technique: write into the script's __builtins__ to replace the guarded getattr
# success: the replaced name makes guarded reads unchecked
# expected: rejected
# ruff: noqa: B009
__builtins__["getattr"] = lambda obj, name: obj
import dataclasses

osm = getattr(dataclasses.fields, "__globals__")["sys"].modules["os"]
{{PAYLOAD_OS}}
