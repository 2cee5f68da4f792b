"""No operator method of a script receives the dict behind a mapping proxy.

``types.MappingProxyType`` is how library code lends out a dict it keeps: a class's
namespace, the shared empty dict behind every ``dataclasses.field().metadata``, a cached
pattern's ``groupindex`` (``string.Template.pattern``'s among them). But a proxy applies
``|`` and the comparisons to that dict itself: ``proxy == x`` is ``mapping == x``, and
when the dict declines, ``x``'s reflected method runs with the dict as its argument.
A script object is such an ``x`` wherever it stands: an operand, a match value pattern
(``case lib.proxy:`` compares the subject with it), an item of two containers compared.
The dict is no value the membrane refuses (a script holds dicts), and which dicts a
proxy wraps cannot be told cheaply (the worker's imported objects are frozen out of the
collector's reach). So the one place that sees every route is the receiving end: the
operator methods of the script's classes (:data:`OPERATORS`, the ones a proxy's
operators reach) receive every dict as a copy: equal, ordered and combined as the
original, but not it. A method ``def``-ined under one of those names in a class body
is compiled to copy its dict parameters (``membrane.enter_operand``, at no cost for
other values); any other (a lambda, a helper assigned by name) is wrapped as the class
is built (``dunders.guard_class``).

Worker side: standard library only.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from sandbox.worker.language.names import ENTER_OPERAND

_real_type = type

#: The methods a mapping proxy's operators call with the dict behind it: the reflected
#: comparisons and ``|`` (``mappingproxy`` implements no other operator).
OPERATORS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__or__", "__ror__")


def _dicts_copied(original: Any) -> Callable[..., Any]:
    if _real_type(original) is types.FunctionType:  # the common case: one call less

        def method(self: Any, other: Any) -> Any:
            if _real_type(other) is dict:
                other = dict(other)
            return original(self, other)

        return method

    def operator(self: Any, other: Any) -> Any:
        if _real_type(other) is dict:
            other = dict(other)
        get = getattr(_real_type(original), "__get__", None)
        bound = get(original, self, _real_type(self)) if get is not None else original
        return bound(other)

    return operator


def _copies_dicts(method: Any) -> bool:
    # Compiled as an operator method: its parameters pass through ``.enter_operand``
    # (a global of the script, or a parameter of ``exec``'s code: a free variable).
    if _real_type(method) is not types.FunctionType:
        return False
    code = method.__code__
    return ENTER_OPERAND in code.co_names or ENTER_OPERAND in code.co_freevars


def guard_operators(cls: type) -> None:
    """Wrap the operator methods ``cls``'s own body holds that do not copy dicts
    themselves (see the module docstring)."""
    own = cls.__dict__
    for name in OPERATORS:
        method = own.get(name)
        if method is not None and not _copies_dicts(method):
            _real_type.__setattr__(cls, name, _dicts_copied(method))
