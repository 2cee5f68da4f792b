# id: walk-helper-self
# category: module-walk
# technique: the result helper's bound __self__ (the session runtime), then its module globals
# success: the runtime's globals hold real modules (builtins, json...) that lead to os
# expected: rejected
runtime = getattr(final_result, "__" + "self__")
g = getattr(type(runtime).__init__, "__" + "globals__")
bi = g["builtins"]
{{PAYLOAD_BUILTINS}}
