"""What an approval is bound to: the digest of an action's content, and the HMAC of a
checkpoint under an application's key.

An action's digest covers exactly what would run — its kind, the script's source or
the tool's name and canonical arguments, the agent, the step and the session state it
runs on (the snapshot's digest) — so a decision that names it approves that content and
no other. Imports nothing from ``codeact``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

#: Domain separation: an action's digest is never another hash's input by accident.
_ACTION = b"codeact.action.v1\n"
_CHECKPOINT = b"codeact.checkpoint.v1\n"
_STATE = b"codeact.state.v1\n"
#: An application key shorter than this is refused (HMAC-SHA256 wants 32 bytes).
MIN_KEY_BYTES = 16


def canonical_json(value: Any) -> bytes:
    """One byte string per JSON value: sorted keys, no spaces, UTF-8."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8", "surrogatepass")


def action_digest(
    *,
    kind: str,
    agent: str,
    step: int,
    source: str | None,
    tool: str | None,
    arguments: dict[str, Any] | None,
    state: str | None,
) -> str:
    """The SHA-256 of an action's content, hex."""
    content = {
        "kind": kind, "agent": agent, "step": step, "source": source, "tool": tool,
        "arguments": arguments, "state": state,
    }  # fmt: skip
    return hashlib.sha256(_ACTION + canonical_json(content)).hexdigest()


def state_digest(snapshot: bytes | None) -> str | None:
    """The SHA-256 of a session snapshot, hex; None for no snapshot."""
    return None if snapshot is None else hashlib.sha256(_STATE + snapshot).hexdigest()


def key_bytes(key: bytes | str) -> bytes:
    """An application key as bytes; `ValueError` when it is too short to sign with."""
    raw = key.encode() if isinstance(key, str) else bytes(key)
    if len(raw) < MIN_KEY_BYTES:
        raise ValueError(
            f"a checkpoint key must be at least {MIN_KEY_BYTES} bytes (got {len(raw)}); "
            "use e.g. secrets.token_bytes(32)"
        )
    return raw


def sign(key: bytes | str, content: Any) -> str:
    """HMAC-SHA256 of a JSON value under ``key``, hex."""
    return hmac.new(key_bytes(key), _CHECKPOINT + canonical_json(content), "sha256").hexdigest()


def signature_matches(key: bytes | str, content: Any, signature: str) -> bool:
    """Whether ``signature`` is ``content``'s under ``key`` (compared in constant time)."""
    return hmac.compare_digest(sign(key, content), signature)
