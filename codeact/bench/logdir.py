"""A run's log directory: ``samples.jsonl`` appended per sample, ``run.json`` and
``summary.json`` replaced atomically.

Each record is one ``write`` of one whole line, newline included, and its length is
checked: a short write (a full disk, a file-size limit) is cut back off the file and
raised as ``OSError``, so the log never holds part of a record that was not reported
as lost. A crash in the middle of a write can still leave a torn last line — cut short,
or cut inside a UTF-8 character. Reading drops it (and any other line that is not a
valid record) with a warning; a resumed run (``repair``) also rewrites the file without
it, keeping the dropped bytes in ``samples.jsonl.dropped``, so that it appends after
whole records only.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from codeact.bench.records import RunInfo, SampleRecord, Summary

T = TypeVar("T", bound=BaseModel)
SAMPLES, RUN, SUMMARY = "samples.jsonl", "run.json", "summary.json"
DROPPED = SAMPLES + ".dropped"
_log = logging.getLogger("codeact.bench")


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
        """The whole records, last one per id. A line that is not one (a torn last
        line, a line that is not UTF-8 or not a record) is dropped with a warning;
        `repair` rewrites the file without it (see the module docstring)."""
        try:
            data = self.samples_path.read_bytes()
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        tail = lines.pop()  # empty when the last record ended its line
        records: dict[str, SampleRecord] = {}
        dropped: list[tuple[str, bytes]] = []
        parsed = 0
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = SampleRecord.model_validate_json(line)
            except ValidationError:
                dropped.append((f"line {number}", line))
                continue
            parsed += 1
            records.pop(record.id, None)
            records[record.id] = record
        if tail:
            dropped.append((f"line {len(lines) + 1} (torn: no newline)", tail))
        if dropped:
            self._warn_dropped(dropped, repair)
        if repair and (dropped or len(records) != parsed):
            if dropped:
                self._keep_dropped(dropped)
            self.rewrite(list(records.values()))
        return list(records.values())

    def _warn_dropped(self, dropped: list[tuple[str, bytes]], repair: bool) -> None:
        where = ", ".join(f"{label}, {len(raw)} bytes" for label, raw in dropped)
        fate = f"removed (kept in {self.path / DROPPED})" if repair else "skipped"
        _log.warning(
            "%s: %s not a whole sample record (%s): %s; its samples run again on resume",
            self.samples_path, "a line is" if len(dropped) == 1 else f"{len(dropped)} lines are",
            where, fate,
        )  # fmt: skip

    def _keep_dropped(self, dropped: list[tuple[str, bytes]]) -> None:
        with open(self.path / DROPPED, "ab") as handle:
            handle.write(b"".join(raw + b"\n" for _, raw in dropped))

    def rewrite(self, records: list[SampleRecord]) -> None:
        """Replace ``samples.jsonl`` with exactly `records`."""
        write_atomic(self.samples_path, "".join(r.model_dump_json() + "\n" for r in records))

    def append(self, record: SampleRecord) -> None:
        """Add one finished sample, durably, as one whole line; `OSError` (the file
        as it was) when the line could not be written whole."""
        line = (record.model_dump_json() + "\n").encode()
        with self._lock:
            fd = os.open(self.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                start = os.fstat(fd).st_size
                try:
                    written = os.write(fd, line)
                except OSError:
                    _cut_back(fd, start)
                    raise
                if written != len(line):
                    _cut_back(fd, start)
                    raise OSError(
                        errno.ENOSPC,
                        f"{self.samples_path}: only {written} of the record's {len(line)} "
                        "bytes could be written (is the disk full?); the log is as it was",
                    )
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


def _cut_back(fd: int, size: int) -> None:
    """Truncate a log to ``size``, dropping what a failed append left of its line."""
    try:
        os.ftruncate(fd, size)
    except OSError as exc:  # the next read drops the torn line instead
        _log.warning("cannot cut a partly written record off the log: %s", exc)


def _read(path: Path, model: type[T]) -> T | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise LogDirError(f"{path}: not a valid {model.__name__}: not UTF-8 ({exc})") from None
    try:
        return model.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise LogDirError(f"{path}: not a valid {model.__name__}: {exc}") from None
