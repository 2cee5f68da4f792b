# id: shadow-getattr-guard
# category: guard-shadowing
# technique: rebind the transformer's _getattr_ guard to the plain builtin
# success: attribute reads are no longer checked and a dunder walk reaches os
# expected: rejected
# ruff: noqa: E731
_getattr_ = lambda obj, name, *default: object.__getattribute__(obj, name)
import dataclasses

osm = dataclasses.fields.__globals__["sys"].modules["os"]
{{PAYLOAD_OS}}
