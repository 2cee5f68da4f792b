# id: trick-methodcaller-reduce
# category: stdlib-tricks
# technique: operator.methodcaller("__reduce_ex__", 2) to obtain copyreg functions
# success: copyreg's builtins give __import__, hence os
# expected: rejected
import operator


class A:
    pass
reduced = operator.methodcaller("__reduce_ex__", 2)(A())
bi = operator.attrgetter("__globals__")(reduced[0])["__builtins__"]
{{PAYLOAD_BUILTINS}}
