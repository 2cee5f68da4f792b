# id: trick-forward-ref-subclass-root
# category: stdlib-tricks
# technique: typing.get_args hands out a ForwardRef; a script subclass of its class (with typing's _root=True keyword) calls the inherited private _evaluate (eval with the real builtins)
# success: the string is evaluated and prints the host environment
# expected: rejected
# ruff: noqa: UP006
import typing


class F(type(typing.get_args(typing.List["x"])[0]), _root=True):
    pass


print(F("__import__('os').environ.get(" + repr({{SECRET_ENV}}) + ")")._evaluate(None, None, frozenset()))
