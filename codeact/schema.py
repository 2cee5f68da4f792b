"""Checking a final result against the agent's output schema.

The schema is a type pydantic can validate (a pydantic model, a dataclass, a
``TypedDict``) or a JSON schema (validated with the ``jsonschema`` library, which
implements the whole specification).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
from pydantic import PydanticSchemaGenerationError, TypeAdapter, ValidationError

Schema = type[Any] | Mapping[str, Any] | None


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def adapter(schema: type[Any]) -> TypeAdapter[Any]:
    """The validator of an output type (built once per type)."""
    found = _ADAPTERS.get(schema)
    if found is None:
        found = _ADAPTERS[schema] = TypeAdapter(schema)
    return found


class OutputSchema:
    """Static helpers over a :data:`Schema`."""

    @staticmethod
    def check(schema: Schema, value: Any) -> str | None:
        """None when ``value`` fits ``schema``; otherwise what is wrong, in words."""
        if schema is None:
            return None
        if isinstance(schema, type):
            try:
                adapter(schema).validate_python(value)
            except ValidationError as exc:
                return "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}"
                    for e in exc.errors(include_url=False)
                )
            return None
        validator = jsonschema.Draft202012Validator(dict(schema))
        problems = [
            f"{'.'.join(map(str, e.absolute_path)) or 'value'}: {e.message}"
            for e in validator.iter_errors(value)
        ]
        return "; ".join(problems) or None

    @staticmethod
    def json_schema(schema: Schema) -> dict[str, Any]:
        """The JSON schema shown to the model."""
        if schema is None:
            return {}
        if isinstance(schema, type):
            return adapter(schema).json_schema()
        return dict(schema)

    @staticmethod
    def validate_definition(schema: Schema) -> None:
        """Raise ValueError when a JSON schema is itself invalid, or a type is one
        pydantic cannot validate."""
        if schema is None:
            return
        if isinstance(schema, type):
            try:
                adapter(schema)
            except PydanticSchemaGenerationError as exc:
                name = getattr(schema, "__name__", repr(schema))
                raise ValueError(f"output_schema {name} cannot be validated: {exc}") from None
            return
        try:
            jsonschema.Draft202012Validator.check_schema(dict(schema))
        except jsonschema.SchemaError as exc:
            raise ValueError(f"output_schema is not a valid JSON schema: {exc.message}") from None
