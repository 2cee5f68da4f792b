"""`model_from_string`: build a model from its spec string.

* ``openai:MODEL`` — `OpenAIChatModel` (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``)
* ``anthropic:MODEL`` — `AnthropicModel` (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``)
* ``openai-compatible:MODEL@http://host:port/v1`` — `OpenAIChatModel`, key optional
* ``scripted:PATH`` — `ScriptedModel.from_file(PATH)`
"""

from __future__ import annotations

import re
from typing import Any

from codeact.models.anthropic import AnthropicModel
from codeact.models.base import Model
from codeact.models.openai import OpenAIChatModel
from codeact.models.testing import ScriptedModel

__all__ = ["PROVIDERS", "model_from_string"]

PROVIDERS = ("openai", "anthropic", "openai-compatible", "scripted")
_COMPATIBLE = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")


def model_from_string(spec: str, **overrides: Any) -> Model:
    """Build the model named by `spec`; `overrides` go to the model's constructor.

    Examples: ``model_from_string("openai:gpt-4o-mini", retry=RetryPolicy.disabled())``,
    ``model_from_string("openai-compatible:qwen2.5@http://127.0.0.1:8000/v1")``.
    """
    provider, sep, rest = spec.strip().partition(":")
    if not sep or not rest.strip():
        raise ValueError(
            f"model spec {spec!r} must look like PROVIDER:MODEL (providers: {', '.join(PROVIDERS)})"
        )
    rest = rest.strip()
    if provider == "openai":
        return OpenAIChatModel(rest, provider="openai", **overrides)
    if provider == "anthropic":
        return AnthropicModel(rest, **overrides)
    if provider == "openai-compatible":
        match = _COMPATIBLE.match(rest)
        if match:
            if "base_url" in overrides:
                raise ValueError(f"model spec {spec!r} already names a base URL; drop base_url=")
            return OpenAIChatModel(
                match["model"], provider="openai-compatible", base_url=match["url"], **overrides
            )
        if "@" in rest:
            raise ValueError(
                f"model spec {spec!r}: the part after '@' must be an http(s) URL, "
                "e.g. openai-compatible:MODEL@http://127.0.0.1:8000/v1"
            )
        return OpenAIChatModel(rest, provider="openai-compatible", **overrides)
    if provider == "scripted":
        unknown = set(overrides) - {"apply_stop"}
        if unknown:
            raise TypeError(f"scripted models take no options {sorted(unknown)}")
        return ScriptedModel.from_file(rest, **overrides)
    raise ValueError(
        f"unknown model provider {provider!r} in {spec!r}; known: {', '.join(PROVIDERS)}"
    )
