# id: trick-wraps-copies-library-privates
# category: stdlib-tricks
# technique: functools.wraps copies the wrapped object's __dict__ onto the script's own function: a stand-in's real class, then ForwardRef._evaluate (eval with the real builtins)
# success: the host's environment secret is printed
# expected: contained
# ruff: noqa: UP006
import functools
import typing

K = type(typing.get_args(typing.List["x"])[0])


def g():
    pass


functools.wraps(K)(g)
real = g._sandbox_target


def h():
    pass


functools.wraps(real)(h)
ref = real("__import__('os').environ")
print(h._evaluate(ref, None, None, frozenset()))
