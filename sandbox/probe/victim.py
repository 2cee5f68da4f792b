"""A victim beside each attack: another session of the same sandbox on the same writable
mount, as an app serving many users has.

It writes a file of its own before the attack runs and again after, from a session that
stays open meanwhile. Whatever the attacker does, the victim's runs succeed, its budget
and its ``Execution.files`` are its own, its results serialize, its file holds what it
wrote, and nothing of it shows in the attacker's result. Each failure is an effect, in
words, as :func:`~sandbox.probe.detectors.judge` reports them.
"""

from __future__ import annotations

import secrets

from sandbox.errors import SandboxError
from sandbox.execution import Execution
from sandbox.host.sandbox import Sandbox
from sandbox.host.session import Session


class Victim:
    """One victim session, opened before an attack and checked after it."""

    def __init__(self, sandbox: Sandbox, mount_at: str, sandbox_path: str) -> None:
        """``mount_at``: where its scripts find the writable mount (the sandbox path, or
        the host path as plain Python); ``sandbox_path``: what ``files`` calls it."""
        self.secret = secrets.token_hex(8)
        self.name = f"victim-{self.secret}.txt"
        self._at = f"{mount_at}/{self.name}"
        self._listed = f"{sandbox_path}/{self.name}"
        self._sandbox = sandbox
        self._session: Session | None = None
        self.effects: list[str] = []

    def _write(self, text: str, mode: str) -> None:
        assert self._session is not None
        execution = self._session.run(f"open({self._at!r}, {mode!r}).write({text!r})")
        self._check(execution)

    def _check(self, execution: Execution) -> None:
        try:
            execution.model_dump_json()
        except ValueError as exc:
            self.effects.append(f"the victim's result cannot be serialized: {exc}")
            return
        if not execution.ok:
            self.effects.append(f"the victim's write failed: {execution.output}"[:300])
        elif [f.path for f in execution.files] != [self._listed]:
            listed = [f.path for f in execution.files]
            self.effects.append(f"the victim's files listed another's: {listed}"[:300])

    def start(self) -> None:
        """Open the session and write the first part (before the attack)."""
        try:
            self._session = self._sandbox.session()
            self._write("before ", "w")
        except SandboxError as exc:
            self.effects.append(f"the victim's session failed: {exc}")

    def finish(self, attacker: str) -> list[str]:
        """Write the second part, read the whole back, close; every effect seen.
        ``attacker``: the attacker's result as JSON (the victim's name must not be in it)."""
        if self._session is not None:
            try:
                self._write("after", "a")
                read = self._session.run(f"final_result(open({self._at!r}).read())")
                if read.output.type != "final_result" or read.output.value != "before after":
                    held = f"the victim's file does not hold what it wrote: {read.output}"
                    self.effects.append(held[:300])
            except SandboxError as exc:
                self.effects.append(f"the victim's session failed: {exc}")
            finally:
                self._session.close()
        if self.secret in attacker:
            self.effects.append("the victim's file showed in the attacker's result")
        return self.effects
