"""What each limit means, in words a model can act on.

Shared by the worker (limits it detects itself) and the host (limits it enforces by
killing the worker). Standard library only.
"""

from __future__ import annotations

from typing import Any


def explain(code: str, limits: dict[str, Any]) -> str:
    """The error message for a script stopped by the limit named ``code``."""
    if code == "timeout":
        return (
            f"The script was stopped after {limits['wall_s']:g} s of wall-clock time "
            f"(the limit per run). Do less per step: smaller inputs, fewer iterations, no "
            f"long sleeps; split long work across several steps."
        )
    if code == "cpu_limit":
        return (
            f"The script used more than {limits['cpu_soft_s']:g} s of CPU time (the limit "
            f"per run) and was stopped. Use a faster algorithm or process less data per step."
        )
    if code == "memory_limit":
        return (
            f"The script ran out of memory (the limit is {limits['memory_mb']} MB). Build "
            f"smaller data structures, stream instead of collecting, or process in chunks."
        )
    if code == "output_limit":
        return (
            f"The script printed more than {limits['output_bytes']} bytes and was stopped. "
            f"Print summaries or slices, and return data with observation(...) instead."
        )
    if code == "result_limit":
        return (
            f"The script's result is larger than {limits['result_bytes']} bytes as JSON. "
            f"Return a summary or a slice of the data instead."
        )
    if code == "tool_call_limit":
        return (
            f"The script made more than {limits['tool_calls']} tool calls in one run and "
            f"was stopped. Make fewer calls per step, or batch the work."
        )
    if code == "source_limit":
        return (
            f"The script is longer than {limits['source_bytes']} bytes. Send shorter code; "
            f"variables from earlier steps are still defined."
        )
    return f"The script was stopped by the sandbox ({code})."
