# id: intro-match-keyword
# category: introspection
# technique: keyword class patterns (Exception(__traceback__=tb), TB(tb_frame=f)) read attributes natively
# success: the frames reach the worker's real builtins
# expected: rejected
try:
    raise ValueError("x")
except ValueError as exc:
    match exc:
        case ValueError(__traceback__=tb):
            TB = type(tb)
            match tb:
                case TB(tb_frame=frame):
                    FR = type(frame)
                    match frame:
                        case FR(f_back=back):
                            match back:
                                case FR(f_globals=g):
                                    bi = g["builtins"]
{{PAYLOAD_BUILTINS}}
