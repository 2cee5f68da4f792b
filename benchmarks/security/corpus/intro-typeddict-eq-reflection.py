# id: intro-typeddict-eq-reflection
# category: introspection
# technique: a TypedDict key "__builtins__" becomes a dataclass field; the generated __eq__, called unbound on two functions, hands the real builtins to a probe's __eq__
# success: the probe receives the worker's real builtins dict, hence os
# expected: rejected
import dataclasses
import json
import typing

T = typing.TypedDict("T", {"__builtins__": int})


@dataclasses.dataclass
class D(T):
    pass


got = []


class Probe(dict):
    def __eq__(self, other):
        got.append(other)
        return False

    __hash__ = None


ns = {"__builtins__": Probe()}
exec("def f(): pass", ns)
D.__eq__(json.dumps, ns["f"])
D.__eq__(ns["f"], json.dumps)
for bi in got:
    if "__import__" in bi:
        {{PAYLOAD_BUILTINS}}
