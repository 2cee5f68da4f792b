# id: ser-marshal-code
# category: serialization
# technique: marshal.loads of a code object, run with types.FunctionType and real builtins
# success: the loaded code creates the marker
# expected: rejected
import marshal
import types

code = compile("import os\nos.mkdir(" + repr({{MARKER}}) + ")", "<x>", "exec")
fn = types.FunctionType(marshal.loads(marshal.dumps(code)), {"__builtins__": __builtins__})
fn()
