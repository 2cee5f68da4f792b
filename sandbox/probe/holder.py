"""A running sandbox for a probe, restarted when an attack brought it down."""

from __future__ import annotations

import threading

from sandbox.host.sandbox import Sandbox
from sandbox.policy import SandboxPolicy


class SandboxHolder:
    """Holds the suite's :class:`Sandbox`; :meth:`restart` replaces a broken one once."""

    def __init__(self, policy: SandboxPolicy, spares: int = 2) -> None:
        self.policy = policy
        self._spares = spares
        self._lock = threading.Lock()
        self.sandbox = Sandbox(policy, spares=spares).start()

    def restart(self, broken: Sandbox) -> None:
        """Close ``broken`` and start a fresh sandbox, unless another thread already did."""
        with self._lock:
            if self.sandbox is broken:
                broken.close()
                self.sandbox = Sandbox(self.policy, spares=self._spares).start()

    def close(self) -> None:
        """Close the current sandbox."""
        self.sandbox.close()
