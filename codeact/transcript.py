"""What ``codeact run`` shows as a run goes: :class:`Transcript`.

The model's reply appears as it streams — its reasoning, then its prose; the code in
it is left out there and shown once, as the script, before the script runs (or a mark
says the reply had none) — then what the model is told about the run, the files it
wrote and the images it showed (saved to a directory when one is given).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from pathlib import Path

from codeact.events import (
    AgentEvent,
    Completed,
    Failed,
    ModelDelta,
    ModelReplied,
    ScriptExecuted,
    Transferred,
)

_FENCED = re.compile(r"```.*?(```|$)", re.S)
_SUFFIXES = {"image/png": "png", "image/jpeg": "jpg"}


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _prose(text: str) -> str:
    """A reply's text outside its fenced code (an unclosed fence hides the rest)."""
    return _FENCED.sub("", text)


class Transcript:
    """Writes each event of a run readably through ``write``; ``images`` is where the
    images scripts show are saved (``step3-1.png``...), if anywhere. ``quiet`` writes
    nothing (``--json``) but still saves the images."""

    def __init__(
        self, write: Callable[[str], None], images: Path | None = None, *, quiet: bool = False
    ) -> None:
        self._write = (lambda text: None) if quiet else write
        self.images = images
        self.saved: list[Path] = []
        self._reply: tuple[int, str] | None = None  # the step streaming now
        self._text = ""
        self._shown = 0
        self._thinking = False
        self._at_line_start = True

    def line(self, text: str) -> None:
        """One line of the caller's own (an approval's outcome)."""
        self._end_line()
        self._emit(text + "\n")

    def show(self, event: AgentEvent) -> None:
        """Write ``event``."""
        if isinstance(event, ModelDelta):
            self._delta(event)
        elif isinstance(event, ModelReplied):
            self._replied(event)
        elif isinstance(event, ScriptExecuted):
            self._executed(event)
        else:
            self.line(describe(event))

    # -- the streaming reply ---------------------------------------------------------
    def _emit(self, text: str) -> None:
        if text:
            self._write(text)
            self._at_line_start = text.endswith("\n")

    def _end_line(self) -> None:
        if not self._at_line_start:
            self._emit("\n")

    def _delta(self, event: ModelDelta) -> None:
        if self._reply != (event.step, event.agent):
            self._end_line()
            self._emit(f"── step {event.step} · {event.agent} ──\n")
            self._reply, self._text, self._shown, self._thinking = (
                (event.step, event.agent),
                "",
                0,
                False,
            )
        if event.kind == "thinking":
            if not self._thinking:
                self._emit("thinking:\n    ")
                self._thinking = True
            self._emit(event.text.replace("\n", "\n    "))
            return
        if self._thinking:
            self._end_line()
            self._thinking = False
        self._text += event.text
        prose = _prose(self._text)
        if self._text.endswith("`"):
            prose = prose.rstrip("`")  # perhaps a fence opening: wait for the next piece
        self._more_prose(prose.rstrip())  # blank lines wait for the text after them

    def _more_prose(self, prose: str) -> None:
        if len(prose) <= self._shown:
            return
        new = prose[self._shown :]
        self._shown = len(prose)
        if self._at_line_start:
            new = "  " + new.lstrip("\n")
        self._emit(re.sub(r"\n(?=[^\n])", "\n  ", new))

    def _replied(self, event: ModelReplied) -> None:
        if self._reply == (event.step, event.agent):
            self._more_prose(_prose(event.content).rstrip())
            self._end_line()
        else:  # not streamed: the whole reply at once
            self.line(f"── step {event.step} · {event.agent} ──")
            if event.thinking:
                self.line("thinking:\n" + _indent(event.thinking))
            prose = _prose(event.content).strip()
            if prose:
                self.line(_indent(prose, "  "))
        self._reply = None
        if event.code is None:
            self.line("· no code in this reply: the model is asked for some")
        else:
            self.line(f"script:\n{_indent(event.code)}")

    def _executed(self, event: ScriptExecuted) -> None:
        lines = [_indent(event.feedback, "  │ ")]
        lines += [
            f"  wrote {f.path} ({f.size} bytes{', new' if f.created else ''})"
            for f in event.execution.files
        ]
        for index, image in enumerate(event.execution.images, 1):
            if self.images is None:
                lines.append(f"  showed an image ({image.media_type}; --save-images DIR keeps it)")
                continue
            path = self.images / f"step{event.step}-{index}.{_SUFFIXES[image.media_type]}"
            path.write_bytes(base64.b64decode(image.data))
            self.saved.append(path)
            lines.append(f"  saved image {path}")
        self.line("\n".join(lines))


def describe(event: AgentEvent) -> str:
    """One event, readable in a terminal (the streaming ones are the Transcript's)."""
    if isinstance(event, ModelReplied):
        parts = [f"── step {event.step} · {event.agent} ──"]
        if event.thinking:
            parts.append("thinking:\n" + _indent(event.thinking))
        prose = _prose(event.content).strip()
        if prose:
            parts.append(_indent(prose, "  "))
        return "\n".join(parts)
    if isinstance(event, ModelDelta):
        return event.text
    if isinstance(event, ScriptExecuted):
        text = f"script:\n{_indent(event.source)}\n{_indent(event.feedback, '  │ ')}"
        return text + "".join(
            f"\n  wrote {f.path} ({f.size} bytes{', new' if f.created else ''})"
            for f in event.execution.files
        )
    if isinstance(event, Transferred):
        return f"→ transferred from {event.from_agent} to {event.to_agent}"
    if isinstance(event, Completed):
        value = (
            event.result
            if isinstance(event.result, str)
            else json.dumps(event.result, ensure_ascii=False, indent=2)
        )
        return f"══ final result ══\n{value}\n({event.usage.one_line()})"
    if isinstance(event, Failed):
        return f"══ failed ({event.code}) ══\n{event.message}\n({event.usage.one_line()})"
    return f"run {event.run_id} started: {event.agent}" if event.type == "started" else ""
