# id: exc-context-chain
# category: exception-attrs
# technique: __context__/__cause__ of an exception raised inside the sandbox's own code, then its traceback
# success: a chained exception carries a frame of the worker with the real builtins
# expected: rejected
import json

try:
    json.codecs
    raise LookupError("plain route")
except Exception as exc:
    inner = getattr(exc, "__con" + "text__") or exc
    tb = getattr(inner, "__trace" + "back__")
    frame = tb.tb_frame
    while frame.f_back is not None:
        frame = frame.f_back
    bi = frame.f_builtins
{{PAYLOAD_BUILTINS}}
