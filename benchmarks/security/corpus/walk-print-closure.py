# id: walk-print-closure
# category: module-walk
# technique: functools.partial(print).func and the helper's __func__/__closure__ cells
# success: a host object of the worker (the runtime) whose globals reach os
# expected: rejected
import functools

p = functools.partial(print)
fn = p.func
code_owner = getattr(fn, "__" + "func__")
g = getattr(code_owner, "__" + "globals__")
bi = g["builtins"]
{{PAYLOAD_BUILTINS}}
