# id: trick-typing-forward-ref
# category: stdlib-tricks
# technique: typing.get_type_hints / ForwardRef evaluate annotation strings with eval
# success: the annotation string runs and creates the marker
# expected: contained
# ruff: noqa: F722
import typing


class C:
    x: "__import__('os').mkdir(" + repr({{MARKER}}) + ")"
try:
    print(typing.get_type_hints(C))
except AttributeError:
    ref = typing.ForwardRef("__import__('os').mkdir(" + repr({{MARKER}}) + ")")
    print(getattr(ref, "_eval" + "uate")(None, None, frozenset()))
