"""Every route by which a format string a script supplies reaches a formatter.

``str.format``'s fields walk attributes natively (``"{0.__globals__[sys]}"``): past every
guard of the compiler. So no route may reach the native walker with a script's
template; each one listed in :data:`ROUTES` goes through the guarded formatter
(``safe_format.py``: a field's attributes are read with the attribute guard) or walks
no attributes at all, and a test tries each. The library routes are closed inside the
library, as the worker starts, so that no way of reaching them (a method of a subclass,
``getattr``) avoids them.

Worker side: standard library only (the data libraries are patched when allowed).
"""

from __future__ import annotations

import collections
import importlib
from typing import Any

from sandbox.worker.language import safe_format
from sandbox.worker.language.control import RefusedInSandbox

#: Each route into a formatter, and what holds it.
ROUTES: dict[str, str] = {
    "str.format, str.format_map (bound, unbound, through super())": (
        "the attribute guard hands out safe_format's (guards.guarded_getattr)"
    ),
    "operator.methodcaller('format', ...)": "through the attribute guard (stdlib_safe)",
    "collections.UserString.format, .format_map": "the guarded formatter (close_stdlib)",
    "string.Formatter": "not a member of the sandbox's string",
    "string.Template": "no attribute walk: a placeholder is a mapping key",
    "% formatting, format(), __format__, f-strings": (
        "no attribute walk: keys, format specs, and compiled expressions"
    ),
    "logging (style='{')": "logging is not importable",
    "numpy printing and savetxt": "callables (the guarded .format) and % templates only",
    "pandas float_format as a str": "the guarded formatter (close_pandas)",
    "pandas Styler.format as a str": "the guarded formatter (close_pandas, with jinja2)",
    "pandas Styler.relabel_index labels": "labels whose .format is the guarded one",
    "pandas Styler templates (jinja2)": "jinja2's SandboxedEnvironment; no custom templates",
    "matplotlib StrMethodFormatter, bar_label and clabel templates": (
        "the guarded formatter (close_matplotlib)"
    ),
}


def _user_string_format(self: Any, /, *args: Any, **kwargs: Any) -> str:
    return safe_format.safe_bound_format(self.data, "format")(*args, **kwargs)


def _user_string_format_map(self: Any, mapping: Any) -> str:
    return safe_format.safe_bound_format(self.data, "format_map")(mapping)


def close_stdlib() -> None:
    """``UserString.format``/``format_map`` call the native method on ``self.data``."""
    collections.UserString.format = _user_string_format  # type: ignore[method-assign, assignment]
    collections.UserString.format_map = _user_string_format_map  # type: ignore[method-assign]


def close_pandas() -> None:
    """A ``float_format`` (and a Styler formatter) given as a str becomes its bound
    ``.format``: the guarded one here."""
    formats = importlib.import_module("pandas.io.formats.format")
    formatter = formats.DataFrameFormatter
    validate = formatter._validate_float_format

    def _validate_float_format(self: Any, fmt: Any) -> Any:
        checked = validate(self, fmt)
        if isinstance(fmt, str) and callable(checked):
            return safe_format.safe_bound_format(fmt, "format")
        return checked

    formatter._validate_float_format = _validate_float_format
    try:
        render = importlib.import_module("pandas.io.formats.style_render")
    except ImportError:  # the Styler needs jinja2
        return
    wrap = render._maybe_wrap_formatter

    def _maybe_wrap_formatter(formatter: Any = None, *args: Any, **kwargs: Any) -> Any:
        if isinstance(formatter, str):
            formatter = safe_format.safe_bound_format(formatter, "format")
        return wrap(formatter, *args, **kwargs)

    vars(render)["_maybe_wrap_formatter"] = _maybe_wrap_formatter
    _close_styler_templates(render)


class _GuardedLabel(str):
    """A label ``relabel_index`` formats natively (``value.format(x)``): its ``format``
    is the guarded one."""

    def format(self, /, *args: Any, **kwargs: Any) -> str:
        return safe_format.safe_bound_format(str.__str__(self), "format")(*args, **kwargs)


def _close_styler_templates(render: Any) -> None:
    """The Styler renders through jinja2, whose plain ``Environment`` evaluates any
    attribute walk a template names (``Styler.env.from_string(...)``): its environment
    and templates become jinja2's own ``SandboxedEnvironment`` (no ``_`` attribute, no
    unsafe call), custom template directories are refused, and ``relabel_index``'s
    labels format through the guard."""
    sandbox = importlib.import_module("jinja2.sandbox")
    renderer = render.StylerRenderer
    env = sandbox.SandboxedEnvironment(loader=renderer.loader, trim_blocks=True)
    renderer.env = env
    for name, value in list(vars(renderer).items()):
        if name.startswith("template_") and hasattr(value, "render"):
            setattr(renderer, name, env.get_template(value.name))
    styler = importlib.import_module("pandas.io.formats.style").Styler

    def from_custom_template(*args: Any, **kwargs: Any) -> Any:
        raise RefusedInSandbox("Styler.from_custom_template is not available in the sandbox")

    styler.from_custom_template = from_custom_template
    relabel = styler.relabel_index

    def relabel_index(self: Any, labels: Any, *args: Any, **kwargs: Any) -> Any:
        labels = [_GuardedLabel(label) if isinstance(label, str) else label for label in labels]
        return relabel(self, labels, *args, **kwargs)

    relabel_index.__doc__ = relabel.__doc__
    styler.relabel_index = relabel_index


def close_matplotlib() -> None:
    """``StrMethodFormatter`` and the label templates apply a script's str natively."""
    ticker = importlib.import_module("matplotlib.ticker")
    cbook = importlib.import_module("matplotlib.cbook")

    def formatter_call(self: Any, x: Any, pos: Any = None) -> str:
        return safe_format.safe_bound_format(self.fmt, "format_map")({"x": x, "pos": pos})

    def auto_format_str(fmt: Any, value: Any) -> str:
        try:
            return str(fmt % (value,))
        except (TypeError, ValueError):
            return safe_format.safe_bound_format(str(fmt), "format")(value)

    ticker.StrMethodFormatter.__call__ = formatter_call
    vars(cbook)["_auto_format_str"] = auto_format_str
