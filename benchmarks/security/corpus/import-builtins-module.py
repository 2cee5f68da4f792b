# id: import-builtins-module
# category: imports
# technique: import builtins and call its __import__
# success: the real __import__ returns os
# expected: rejected
import builtins as bi

{{PAYLOAD_BUILTINS}}
