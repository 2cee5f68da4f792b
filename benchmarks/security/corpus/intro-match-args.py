# id: intro-match-args
# category: introspection
# technique: a class pattern whose __match_args__ names __traceback__, read natively by match
# success: the traceback's frames reach the worker's real builtins
# expected: rejected
class P(Exception):
    __match_args__ = ("__traceback__",)
try:
    raise P("x")
except P as exc:
    match exc:
        case P(tb):
            bi = tb.tb_frame.f_back.f_globals["builtins"]
{{PAYLOAD_BUILTINS}}
