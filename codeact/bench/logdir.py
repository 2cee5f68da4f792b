"""A run's log directory: ``samples.jsonl`` appended per sample, ``run.json`` and
``summary.json`` replaced atomically.

A crash can leave a half-written last line in ``samples.jsonl``; reading drops it (and
any line that does not validate) and rewrites the file without it, so a resumed run
appends after whole records only.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from codeact.bench.records import RunInfo, SampleRecord, Summary

T = TypeVar("T", bound=BaseModel)
SAMPLES, RUN, SUMMARY = "samples.jsonl", "run.json", "summary.json"


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that readers see the old file or the new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; logs and reports are for sharing
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class LogDirError(ValueError):
    """The directory cannot hold this run; the message says why."""


class LogDir:
    """The files of one run (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @property
    def samples_path(self) -> Path:
        return self.path / SAMPLES

    def create(self) -> None:
        """Make the directory (and its parents)."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LogDirError(f"{self.path}: cannot create: {exc.strerror or exc}") from None

    def read_samples(self, *, repair: bool = False) -> list[SampleRecord]:
        """The whole records, last one per id; `repair` rewrites the file without the rest."""
        try:
            lines = self.samples_path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        records: dict[str, SampleRecord] = {}
        bad = 0
        for line in lines:
            if not line.strip():
                continue
            try:
                record = SampleRecord.model_validate_json(line)
            except ValidationError:
                bad += 1
                continue
            records.pop(record.id, None)
            records[record.id] = record
        if repair and (bad or len(records) != sum(1 for line in lines if line.strip())):
            self.rewrite(list(records.values()))
        return list(records.values())

    def rewrite(self, records: list[SampleRecord]) -> None:
        """Replace ``samples.jsonl`` with exactly `records`."""
        write_atomic(self.samples_path, "".join(r.model_dump_json() + "\n" for r in records))

    def append(self, record: SampleRecord) -> None:
        """Add one finished sample, durably, as one whole line."""
        line = (record.model_dump_json() + "\n").encode()
        with self._lock:
            fd = os.open(self.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)

    def read_run(self) -> RunInfo | None:
        """``run.json``, or None before the first run."""
        return _read(self.path / RUN, RunInfo)

    def write_run(self, info: RunInfo) -> None:
        write_atomic(self.path / RUN, info.model_dump_json(indent=2) + "\n")

    def write_summary(self, summary: Summary) -> None:
        write_atomic(self.path / SUMMARY, summary.model_dump_json(indent=2) + "\n")


def _read(path: Path, model: type[T]) -> T | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        return model.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise LogDirError(f"{path}: not a valid {model.__name__}: {exc}") from None
