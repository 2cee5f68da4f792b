# id: frame-traceback-getattr
# category: frames
# technique: getattr(exc, "__traceback__") and getattr(tb, "tb_frame") with computed names
# success: the frames reach the real builtins
# expected: rejected
try:
    1 / 0
except ZeroDivisionError as exc:
    tb = getattr(exc, "__trace" + "back__")
    frame = getattr(tb, "tb_" + "frame")
    bi = getattr(frame, "f_" + "builtins")
{{PAYLOAD_BUILTINS}}
