"""Progress of a run: a live `rich` display on a terminal, plain lines otherwise, or nothing.

Both show done/total, passed/failed/errors, the rate, an ETA and the tokens so far.
"""

from __future__ import annotations

import sys
import time
from typing import Literal, TextIO

from codeact.bench.records import SampleRecord, Summary
from codeact.bench.runner import Observer
from codeact.bench.sample import Outcome, SamplePlan

DisplayKind = Literal["rich", "plain", "none"]


class _Counts:
    def __init__(self) -> None:
        self.total = self.done = self.passed = self.failed = self.errors = self.tokens = 0
        self.resumed = 0
        self.started = time.monotonic()

    def add(self, record: SampleRecord) -> None:
        self.done += 1
        self.tokens += record.usage.total_tokens
        if record.status == "passed":
            self.passed += 1
        elif record.status == "failed":
            self.failed += 1
        else:
            self.errors += 1

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        fresh = self.done - self.resumed
        rate = fresh / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f} s" if rate > 0 else "?"
        return (
            f"{self.done}/{self.total} · {self.passed} passed, {self.failed} failed, "
            f"{self.errors} errors · {rate:.2f} samples/s · ETA {eta} · {self.tokens:,} tokens"
        )


class PlainDisplay(Observer):
    """One line per finished sample, with the running counts."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.counts = _Counts()

    def started(self, total: int, done: list[SampleRecord]) -> None:
        self.counts.total = total
        for record in done:
            self.counts.add(record)
        self.counts.resumed = len(done)
        if done:
            print(f"resuming: {len(done)} of {total} samples already done", file=self.stream)

    def finished(self, record: SampleRecord) -> None:
        self.counts.add(record)
        code = f" ({record.failure_code})" if record.failure_code else ""
        print(
            f"{record.status:<6} {record.task} [{record.action_mode} e{record.epoch}]{code}"
            f" · {record.turns} turns · {self.counts.line()}",
            file=self.stream,
            flush=True,
        )

    def retrying(self, plan: SamplePlan, outcome: Outcome) -> None:
        print(f"retry  {plan.task.id}: {outcome.failure_code}", file=self.stream, flush=True)


class RichDisplay(PlainDisplay):
    """A live progress bar with the counts; failures and errors are printed above it."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        super().__init__()
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]bench"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            console=self.console,
            transient=False,
        )
        self.task_id = self.progress.add_task("bench", total=None, counts="")

    def started(self, total: int, done: list[SampleRecord]) -> None:
        for record in done:
            self.counts.add(record)
        self.counts.total, self.counts.resumed = total, len(done)
        self.progress.update(self.task_id, total=total, completed=len(done), counts=self._text())
        self.progress.start()

    def _text(self) -> str:
        c = self.counts
        return (
            f"[green]{c.passed} passed[/] [red]{c.failed} failed[/] [yellow]{c.errors} errors[/]"
            f" · {c.line().split(' · ', 2)[2]}"
        )

    def finished(self, record: SampleRecord) -> None:
        self.counts.add(record)
        if record.status != "passed":
            code = f" ({record.failure_code})" if record.failure_code else ""
            self.progress.console.print(f"{record.status} {record.task}{code}", markup=False)
        self.progress.update(self.task_id, completed=self.counts.done, counts=self._text())

    def retrying(self, plan: SamplePlan, outcome: Outcome) -> None:
        self.progress.console.print(f"retry {plan.task.id}: {outcome.failure_code}", markup=False)

    def close(self, summary: Summary | None) -> None:
        self.progress.stop()


def make_display(kind: DisplayKind | None) -> Observer:
    """`kind`, or by default rich on a terminal and plain lines otherwise."""
    if kind is None:
        kind = "rich" if sys.stderr.isatty() else "plain"
    if kind == "rich":
        return RichDisplay()
    if kind == "plain":
        return PlainDisplay()
    return Observer()
