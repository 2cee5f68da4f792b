"""The policy research kit: run attack suites against a policy and see which layer
stops what.

:func:`run_suite` runs the escapes corpus (``benchmarks/security/corpus``) or RedCode-Exec
(``benchmarks/security/redcode``) under a policy and returns one :class:`CaseResult` per
case; :func:`render_table` prints rejected / contained / escaped per category with the
attack success rate.
"""

from __future__ import annotations

from sandbox.errors import ProbeRefused
from sandbox.probe.results import (
    CaseResult,
    CategoryRow,
    Outcome,
    render_comparison,
    render_table,
    summarize,
)
from sandbox.probe.suite import SUITES, run_suite

__all__ = [
    "SUITES",
    "CaseResult",
    "CategoryRow",
    "Outcome",
    "ProbeRefused",
    "render_comparison",
    "render_table",
    "run_suite",
    "summarize",
]
