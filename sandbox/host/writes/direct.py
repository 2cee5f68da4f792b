"""Writable mounts the worker writes itself (``writes = "direct"``, or the OS layer off).

Outside the OS layer's boundary, and said so in the policy: the host only measures each
mount after every run (``usage.py``: a session whose mount grew beyond ``max_bytes`` is
stopped, though the bytes stay) and lists the files that changed (``changed.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sandbox.execution import WrittenFile
from sandbox.host.writes.changed import WrittenFiles
from sandbox.host.writes.usage import MountUsage


class DirectWrites:
    """A session's writable mounts, written directly: measured after each run."""

    def __init__(self, mounts: list[dict[str, Any]]) -> None:
        self._usage = MountUsage(mounts)
        self._written = WrittenFiles(mounts)

    def attach(self, pid: int, layers: Sequence[int]) -> None:
        """Nothing to open: the worker writes the directories themselves."""

    def overdrawn(self) -> str | None:
        """None while every writable mount is within budget; else what went wrong."""
        return self._usage.overdrawn()

    def take_files(self) -> list[WrittenFile]:
        """Files created or changed under the mounts since the last call."""
        return self._written.since_last()

    def take_notes(self) -> list[str]:
        """How many files changed beyond what the last listing holds."""
        notes, self._written.notes = self._written.notes, []
        return notes

    def take_problems(self) -> list[str]:
        """Nothing is applied, so nothing fails to be."""
        return []

    def close(self) -> None:
        """Nothing held."""
