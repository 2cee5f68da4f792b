"""How ``codeact run`` takes approval decisions — at the terminal (``--approve``), from
a file or standard input (``--approve-file``) — and how its transcript shows them."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator

from codeact.events import Decision, InteractionRequired, PreparedAction, SubmitInteraction
from sandbox.cli import InputError, read_text

Decide = Callable[[PreparedAction], Decision]


def decider(approve_file: str | None, *, approve: bool) -> Decide | None:
    """How approvals are answered: None when nothing needs approval; `ValueError`
    (bad usage) saying why the decisions cannot be had."""
    if approve_file is not None:
        # Standard input too is read whole before the run, by the rules of a file.
        try:
            lines = read_text(approve_file).splitlines()
        except InputError as exc:
            raise ValueError(f"--approve-file {approve_file}: {exc}") from None
        name = "standard input" if approve_file == "-" else approve_file
        return LineDecisions(iter(lines), name).decide
    if not approve:
        return None
    if not sys.stdin.isatty():
        raise ValueError(
            "--approve needs a terminal to ask at; without one, give the decisions with "
            "--approve-file PATH (one line per script: y to run it, else the reason to refuse)"
        )
    return ask_terminal


def decide_all(event: InteractionRequired, decide: Decide) -> SubmitInteraction:
    """The answer to ``event``: ``decide`` on each of its actions."""
    return SubmitInteraction(batch_id=event.batch_id, decisions=[decide(a) for a in event.actions])


def _what(action: PreparedAction) -> str:
    if action.kind == "script":
        return action.source or ""
    return f"{action.tool}({json.dumps(action.arguments)})"


def ask_terminal(action: PreparedAction) -> Decision:
    """Ask at the terminal whether ``action`` may run."""
    print(
        f"\n--- approve this {action.kind.replace('_', ' ')}? ---\n{_what(action)}",
        file=sys.stderr,
    )
    try:
        answer = input("run it? [y/N, or a reason to refuse] ").strip()
    except EOFError:
        answer = ""
    return _decision(action, answer)


def _decision(action: PreparedAction, answer: str) -> Decision:
    if answer.lower() in ("y", "yes"):
        return Decision.approve(action)
    return Decision.refuse(action, answer or "refused")


class LineDecisions:
    """Decisions read from a file, one line per action, in order."""

    def __init__(self, lines: Iterator[str], name: str) -> None:
        self._lines, self._name = lines, name

    def decide(self, action: PreparedAction) -> Decision:
        """The next line's decision; refused when the file has no line left."""
        line = next(self._lines, None)
        if line is None:
            return Decision.refuse(action, f"no decision left in {self._name}")
        return _decision(action, line.strip())


def describe_decisions(event: InteractionRequired, answer: SubmitInteraction) -> list[str]:
    """The transcript's lines for the decisions taken on ``event``."""
    kinds = {a.id: a.kind.replace("_", " ") for a in event.actions}
    return [
        f"✓ {kinds.get(d.action_id, 'action')} approved"
        if d.proceed
        else f"✗ {kinds.get(d.action_id, 'action')} refused: {d.reason or 'refused'}"
        for d in answer.decisions
    ]
