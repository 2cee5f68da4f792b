"""Small helpers shared by the wire-format modules: defensive reads of decoded JSON."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from codeact.models.errors import ModelError, ModelErrorCode

__all__ = ["as_int", "as_mapping", "decode_event_json", "malformed", "new_tool_call_id"]


def malformed(provider: str, detail: str) -> ModelError:
    """A `malformed_response` error."""
    return ModelError(ModelErrorCode.MALFORMED_RESPONSE, f"{provider}: {detail}", provider=provider)


def as_int(value: Any) -> int:
    """A non-negative token count, or 0 for anything that is not one."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value.is_integer():
        return max(int(value), 0)
    return 0


def as_mapping(value: Any) -> Mapping[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def decode_event_json(provider: str, data: str) -> Mapping[str, Any]:
    """Decode the JSON payload of one stream event, which must be an object."""
    try:
        decoded = json.loads(data)
    except json.JSONDecodeError as exc:
        raise malformed(provider, f"stream event is not JSON: {data[:200]!r}") from exc
    if not isinstance(decoded, Mapping):
        raise malformed(provider, f"stream event is not a JSON object: {data[:200]!r}")
    return decoded


def new_tool_call_id() -> str:
    """An id for a tool call whose server did not provide one."""
    return f"call_{uuid.uuid4().hex[:24]}"
