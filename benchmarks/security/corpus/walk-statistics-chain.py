# id: walk-statistics-chain
# category: module-walk
# technique: statistics.fractions/decimal/random chains towards a module that holds sys
# success: any chain reaches the real sys (and os) module
# expected: contained
# ruff: noqa: B009, F841
import statistics

osm = None
for route in ("sys", "fractions", "decimal", "random", "collections"):
    try:
        inner = getattr(statistics, route)
        osm = inner.modules["os"] if route == "sys" else getattr(inner, "sys").modules["os"]
        break
    except AttributeError as exc:
        print(route, "refused")
if osm is None:
    raise AttributeError("no route")
{{PAYLOAD_OS}}
