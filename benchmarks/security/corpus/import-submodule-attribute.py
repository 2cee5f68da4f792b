# id: import-submodule-attribute
# category: imports
# technique: import an allowed submodule (collections.abc) and read a module it imported
# success: collections.abc leads to the real sys, hence os
# expected: rejected
# ruff: noqa: B009
from collections import abc

sysm = getattr(abc, "sys", None) or getattr(abc, "_sys")
osm = sysm.modules["os"]
{{PAYLOAD_OS}}
