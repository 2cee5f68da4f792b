# id: intro-reduce-ex
# category: introspection
# technique: an object's __reduce_ex__(2) returns copyreg.__newobj__, a real function with real builtins
# success: copyreg's builtins give __import__, hence os
# expected: rejected
# ruff: noqa: B009
class A:
    pass
reduced = getattr(A(), "__reduce" + "_ex__")(2)
bi = getattr(reduced[0], "__globals__")["__builtins__"]
{{PAYLOAD_BUILTINS}}
