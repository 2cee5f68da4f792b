# id: eval-exec-builtins
# category: guard-shadowing
# technique: exec with a namespace lacking __builtins__, then the builtins it was given
# success: the namespace holds the interpreter's real builtins (__import__, open)
# expected: rejected
ns = {}
exec("pass", ns)
bi = ns["__builtins__"]
{{PAYLOAD_BUILTINS}}
