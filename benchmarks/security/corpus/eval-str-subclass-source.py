# id: eval-str-subclass-source
# category: guard-shadowing
# technique: a str subclass given to eval says one thing to a check, another to the compiler
# success: the compiled code imports os through the real builtins
# expected: rejected
class S(str):
    calls = 0

    def __str__(self):
        S.calls += 1
        return "1" if S.calls == 1 else "__import__('os')"

    def encode(self, *args):
        return b"__import__('os')"


osm = eval(S("__import__('os')"))
{{PAYLOAD_OS}}
