"""Deterministic sample ids and the seeds derived from them."""

from __future__ import annotations

import hashlib
import json


def sample_id(
    *,
    suite: str,
    task: str,
    epoch: int,
    action_mode: str,
    protocol: str,
    model: str,
    policy_digest: str,
) -> str:
    """The same inputs give the same id on every machine: resume relies on it."""
    key = json.dumps(
        [suite, task, epoch, action_mode, protocol, model, policy_digest], ensure_ascii=True
    )
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def seed_for(sample: str) -> int:
    """A 31-bit seed from a sample id (fits every API that takes an int seed)."""
    return int(hashlib.sha256(f"seed:{sample}".encode()).hexdigest()[:8], 16) & 0x7FFFFFFF
