"""codeact bench: run agent benchmark suites — concurrency, per-sample logs, resume,
a summary and an HTML report. ``codeact bench run SUITE --model MODEL``."""

from codeact.bench.records import (
    INFRA_FAILURES,
    GroupStats,
    ModelRetry,
    RunInfo,
    SampleRecord,
    Summary,
    TaskStats,
)
from codeact.bench.suite import BenchTask, Suite, SuiteError, exact_match

__all__ = [
    "INFRA_FAILURES",
    "BenchTask",
    "GroupStats",
    "ModelRetry",
    "RunInfo",
    "SampleRecord",
    "Suite",
    "SuiteError",
    "Summary",
    "TaskStats",
    "exact_match",
]
