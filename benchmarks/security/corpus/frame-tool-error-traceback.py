# id: frame-tool-error-traceback
# category: frames
# technique: the traceback of an exception raised by a host tool call, walked back into the worker
# success: the worker frames that made the call expose the channel or the real builtins
# expected: rejected
# ruff: noqa: B009
try:
    probe_tool(value=[1, 2])
except Exception as exc:
    frame = getattr(exc, "__traceback__").tb_frame
    bi = frame.f_globals.get("builtins") or frame.f_builtins
{{PAYLOAD_BUILTINS}}
