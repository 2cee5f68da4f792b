# id: frame-traceback-tb-frame
# category: frames
# technique: an exception's __traceback__.tb_frame.f_back into the runtime that ran the script
# success: the runtime module's globals hold the real builtins module
# expected: rejected
try:
    1 / 0
except ZeroDivisionError as exc:
    frame = exc.__traceback__.tb_frame
while frame is not None and "builtins" not in frame.f_globals:
    frame = frame.f_back
bi = frame.f_globals["builtins"]
{{PAYLOAD_BUILTINS}}
