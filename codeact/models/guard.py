"""A switch that forbids real network model calls (for test suites).

Either set ``CODEACT_BLOCK_MODEL_REQUESTS=1`` in the environment, or call
`block_network_models()` — as a plain call it blocks from then on (undo with
`allow_network_models()`), as a context manager it blocks for the ``with`` body::

    with block_network_models():
        await agent.run(...)      # any OpenAIChatModel/AnthropicModel call raises

HTTP model clients check the switch before every request and raise
`NetworkBlockedError` (a `ModelError` with code ``connection_error``). Test doubles
(`ScriptedModel`, `FunctionModel`) never touch the network and are unaffected.
"""

from __future__ import annotations

import os
import threading
from types import TracebackType

from codeact.models.errors import ModelError, ModelErrorCode

__all__ = [
    "BLOCK_ENV_VAR",
    "NetworkBlockedError",
    "allow_network_models",
    "block_network_models",
    "check_network_allowed",
    "network_models_blocked",
]

BLOCK_ENV_VAR = "CODEACT_BLOCK_MODEL_REQUESTS"

_TRUTHY = frozenset({"1", "true", "yes", "on"})
_lock = threading.Lock()
# A process-wide depth counter rather than a context variable: requests made from
# other threads or tasks started before the block must be caught as well.
_depth = 0


class NetworkBlockedError(ModelError):
    """Raised instead of sending a model request while network models are blocked."""

    def __init__(self, model_name: str) -> None:
        super().__init__(
            ModelErrorCode.CONNECTION_ERROR,
            f"request to model {model_name!r} blocked: network model calls are disabled "
            f"({BLOCK_ENV_VAR}=1 or codeact.models.block_network_models()); "
            "use ScriptedModel or FunctionModel in tests",
            should_retry=False,
        )


class block_network_models:
    """Block network model calls now; as a context manager, until the block exits."""

    def __init__(self) -> None:
        global _depth
        with _lock:
            _depth += 1
        self._active = True

    def __enter__(self) -> block_network_models:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _depth
        with _lock:
            if self._active and _depth > 0:
                _depth -= 1
            self._active = False


def allow_network_models() -> None:
    """Lift every block set by `block_network_models()` (the env var still applies)."""
    global _depth
    with _lock:
        _depth = 0


def network_models_blocked() -> bool:
    """Whether network model calls are currently forbidden."""
    if os.environ.get(BLOCK_ENV_VAR, "").strip().lower() in _TRUTHY:
        return True
    return _depth > 0


def check_network_allowed(model_name: str) -> None:
    """Raise `NetworkBlockedError` if network model calls are blocked."""
    if network_models_blocked():
        raise NetworkBlockedError(model_name)
