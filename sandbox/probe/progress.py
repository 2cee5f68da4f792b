"""Progress of ``codeact policy probe``: a live `rich` bar on a terminal (done/total,
rejected/contained/escaped, rate, ETA), a plain line every 5% otherwise, or nothing."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from typing import Any, Literal

from sandbox.probe.results import CaseResult

DisplayKind = Literal["rich", "plain", "none"]


class ProbeProgress:
    """Counts results as they arrive (from worker threads) and shows them."""

    def __init__(self, kind: DisplayKind | None, label: str) -> None:
        if kind is None:
            kind = "rich" if sys.stderr.isatty() else "plain"
        self.kind, self.label = kind, label
        self.total = 0
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._bar: Any = None
        self._task: Any = None

    def line(self) -> str:
        """``12/196 · 11 rejected, 1 contained, 0 escaped · 3.1 cases/s · ETA 60 s``."""
        done = sum(self.counts.values())
        rate = done / max(time.monotonic() - self._started, 1e-6)
        eta = f"{(self.total - done) / rate:.0f} s" if rate > 0 else "?"
        return (
            f"{done}/{self.total} · {self.counts['rejected']} rejected, "
            f"{self.counts['contained']} contained, {self.counts['escaped']} escaped · "
            f"{rate:.1f} cases/s · ETA {eta}"
        )

    def start(self, total: int) -> None:
        self.total, self._started = total, time.monotonic()
        if self.kind == "rich":
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(
                TextColumn(f"[bold]{self.label}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[counts]}"), console=Console(stderr=True),
            )  # fmt: skip
            self._task = self._bar.add_task(self.label, total=total, counts="")
            self._bar.start()

    def result(self, result: CaseResult) -> None:
        with self._lock:
            self.counts[result.outcome] += 1
            done = sum(self.counts.values())
            text = self.line()
        if self._bar is not None:
            self._bar.update(self._task, completed=done, counts=text.split(" · ", 1)[1])
        elif self.kind == "plain" and (done % max(1, self.total // 20) == 0 or done == self.total):
            print(f"{self.label}: {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
