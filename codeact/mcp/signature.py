"""An MCP tool's JSON schemas as a Python signature, so scripts and prompts see a function.

``inputSchema`` properties become parameters (required first, then optional ones with
their schema default or ``None``), JSON types become annotations (``integer`` → ``int``,
``array`` of strings → ``list[str]``, nested objects → ``dict[str, Any]``, ``enum`` →
``Literal``), and ``outputSchema`` the return annotation.
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Mapping
from typing import Any, Literal, Union

_SCALARS: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


def annotation_for(schema: Any) -> Any:
    """The Python annotation that describes values of a JSON schema (``Any`` if unknown)."""
    if not isinstance(schema, Mapping):
        return Any
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str | int | bool) for v in enum):
        return Literal[tuple(enum)]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _union([annotation_for(option) for option in options])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation_for({**schema, "type": k}) for k in kind])
    if kind == "array":
        return list[annotation_for(schema.get("items"))]  # type: ignore[misc]
    if kind == "object":
        return dict[str, Any]
    return _SCALARS.get(kind, Any) if isinstance(kind, str) else Any


def _union(options: list[Any]) -> Any:
    unique = list(dict.fromkeys(options))
    if Any in unique:
        return Any
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007


def python_identifier(name: str) -> str:
    """``get-weather`` → ``get_weather``; a valid identifier without a leading underscore."""
    text = re.sub(r"\W", "_", name).strip("_") or "tool"
    if text[0].isdigit():
        text = "t_" + text
    return text + "_" if keyword.iskeyword(text) else text


def signature_for(input_schema: Any, output_schema: Any = None) -> inspect.Signature:
    """Keyword-or-positional parameters in the schema's property order, required first."""
    schema = input_schema if isinstance(input_schema, Mapping) else {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params: list[inspect.Parameter] = []
    optional: list[inspect.Parameter] = []
    for name, prop in properties.items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"parameter {name!r} is not a Python identifier")
        annotation = annotation_for(prop)
        if name in required:
            params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            annotation=annotation))
        else:
            default = prop.get("default") if isinstance(prop, Mapping) else None
            if default is None:
                annotation = annotation | None if annotation is not Any else Any
            optional.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                              default=default, annotation=annotation))
    return inspect.Signature([*params, *optional], return_annotation=_returns(output_schema))


def _returns(output_schema: Any) -> Any:
    if not isinstance(output_schema, Mapping):
        return Any
    wrapped = wrapped_result(output_schema)
    if wrapped is not None:
        return annotation_for(wrapped)
    return annotation_for({"type": "object", **output_schema})


def wrapped_result(output_schema: Any) -> Any:
    """The schema of ``result`` when a server wraps a plain value as ``{"result": value}``.

    MCP servers built with the SDK do this for every return type that is not an object,
    so the script gets the value itself, as it would from a Python function.
    """
    if not isinstance(output_schema, Mapping):
        return None
    properties = output_schema.get("properties")
    if (
        isinstance(properties, Mapping)
        and set(properties) == {"result"}
        and list(output_schema.get("required") or []) == ["result"]
    ):
        return properties["result"]
    return None
