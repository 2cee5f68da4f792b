# id: copy-getstate-slot-hook
# category: stdlib-tricks
# technique: a slot named __getattribute__ filled by copy from a __getstate__ value
# success: copy does the setattr the script may not, and the instance fakes isinstance
# expected: rejected
import copy


class Fake:
    __slots__ = ("__getattribute__",)

    def __getstate__(self):
        return (None, {"__getattribute__": lambda name: print})


f = copy.copy(Fake())
bi = f.__self__
{{PAYLOAD_BUILTINS}}
