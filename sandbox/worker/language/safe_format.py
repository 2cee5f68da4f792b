"""``str.format`` without attribute walks.

``"{0.__class__}".format(x)`` walks attributes natively, past every compile-time check.
Format strings whose fields cannot walk (no ``.`` in a field, no nested field in a
spec) keep the fast native method; the others go through a ``string.Formatter`` whose
attribute lookups use the sandbox's guarded getattr.

The template is always an exact ``str`` built here (``str.__str__`` copies a subclass's
characters without calling its methods) before anything inspects it: a ``str``
subclass could answer ``"." in template`` as it likes.

Worker side: standard library only.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]
import string
import types
from collections.abc import Callable, Mapping
from typing import Any


class _SafeFormatter(string.Formatter):
    def __init__(self, getattr_: Callable[[Any, str], Any]) -> None:
        self._getattr = getattr_

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = self._getattr(obj, key) if is_attr else obj[key]
        return obj, first


_formatter: _SafeFormatter | None = None


def use_attribute_guard(getattr_: Callable[[Any, str], Any]) -> None:
    """Route ``{x.attr}`` fields through ``getattr_`` (the sandbox's guarded getattr)."""
    global _formatter
    _formatter = _SafeFormatter(getattr_)


def _vformat(template: str, args: Any, kwargs: Any) -> str:
    if _formatter is None:
        raise RuntimeError("safe formatting is not configured")
    return _formatter.vformat(template, args, kwargs)


def _needs_safe_formatting(template: str) -> bool:
    # Only ``{x.attr}`` fields and nested fields in format specs can walk attributes;
    # everything else is left to the native, much faster, str.format.
    if "." not in template:
        return False
    for _, field, spec, _ in _string.formatter_parser(template):
        if field and "." in field:
            return True
        if spec and "{" in spec:
            return True
    return False


def _exact(template: str) -> str:
    # ``str.__str__`` is str's own slot: an exact str as is, a subclass's characters
    # copied into a new exact str; no method of the subclass runs.
    exact = str.__str__(template)
    assert type(exact) is str
    return exact


def _bound_safe_format(template: str, name: str) -> Callable[..., str]:
    template = _exact(template)
    if not _needs_safe_formatting(template):
        # The native method of the exact copy: the same characters were checked.
        return getattr(template, name)  # type: ignore[no-any-return]
    if name == "format":
        return lambda *args, **kwargs: _vformat(template, args, kwargs)
    return lambda mapping: _vformat(template, (), mapping)


def safe_bound_format(template: Any, name: str = "format") -> Callable[..., str]:
    """``template.format`` (or ``format_map``) through the guarded formatter."""
    if not isinstance(template, str):
        raise TypeError(f"a format string must be a str, not {type(template).__name__!r}")
    return _bound_safe_format(template, name)


def _safe_format_unbound(template: Any, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise TypeError("str.format() needs a str as its first argument")
    return _bound_safe_format(template, "format")(*args, **kwargs)


def _safe_format_map_unbound(template: Any, mapping: Mapping[str, Any]) -> str:
    if not isinstance(template, str):
        raise TypeError("str.format_map() needs a str as its first argument")
    return _bound_safe_format(template, "format_map")(mapping)


_NATIVE_FORMATS = {str.format: _safe_format_unbound, str.format_map: _safe_format_map_unbound}


def safe_format_method(value: Any) -> Any:
    """``value``, or the safe stand-in when it is a native ``str.format``/``format_map``."""
    if isinstance(value, types.MethodDescriptorType) and value in _NATIVE_FORMATS:
        return _NATIVE_FORMATS[value]
    if (
        isinstance(value, types.BuiltinMethodType)
        and isinstance(value.__self__, str)
        and value.__name__ in ("format", "format_map")
    ):
        return _bound_safe_format(value.__self__, value.__name__)
    return value
