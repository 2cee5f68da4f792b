"""Where each sample's model comes from: a shared client, or golden replies per task."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from codeact.bench.suite import BenchTask, Suite, SuiteError
from codeact.models import ScriptedModel, ScriptedReply
from codeact.models.base import Model
from codeact.models.http import DEFAULT_TIMEOUT
from codeact.models.registry import model_from_string
from codeact.models.retry import RetryPolicy

GOLDEN = "golden"
#: Providers whose API takes a ``seed``: each sample asks for its own.
SEEDED = ("openai:", "openai-compatible:")


class ModelSource:
    """``golden`` gives each sample a `ScriptedModel` of its task's golden replies; any
    other spec builds one client (one connection pool), shared by every sample, with
    its own retries off (the runner retries instead, so that 429s shrink the shared
    connection limit). OpenAI-style APIs get the sample's seed in each request."""

    def __init__(
        self, spec: str, suite: Suite, factory: Callable[[BenchTask], Model] | None = None
    ) -> None:
        self.spec = spec
        self.suite = suite
        self.factory = factory
        self.shared: Model | None = None
        self.client: httpx.AsyncClient | None = None
        if factory is not None:
            return
        if spec == GOLDEN:
            if suite.golden is None:
                raise SuiteError(f"suite {suite.name!r} ships no golden replies")
        elif spec.startswith("scripted:"):
            self.shared = model_from_string(spec)
        elif spec.startswith(SEEDED):
            # One connection pool for all samples; a light client per sample carries its
            # seed. Built once here so that a bad spec fails before any sample runs.
            self.client = httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)
            self.for_task(suite.tasks[0], 0)
        else:
            self.shared = model_from_string(spec, retry=RetryPolicy.disabled())

    def check(self, tasks: list[BenchTask]) -> None:
        """`SuiteError` naming the tasks that have no golden replies (for ``golden``)."""
        if self.spec != GOLDEN or self.factory is not None or self.suite.golden is None:
            return
        missing = [task.id for task in tasks if not self.suite.golden(task)]
        if missing:
            raise SuiteError(
                f"suite {self.suite.name!r} has no golden replies for {len(missing)} of the "
                f"{len(tasks)} tasks selected, e.g. {', '.join(missing[:3])}"
            )

    def for_task(self, task: BenchTask, seed: int | None = None) -> Model:
        """The model a sample of `task` talks to (asked for `seed` where the API takes one)."""
        if self.factory is not None:
            return self.factory(task)
        if self.client is not None:
            extra = {"seed": seed} if seed is not None else None
            return model_from_string(
                self.spec, retry=RetryPolicy.disabled(), client=self.client, extra_body=extra
            )
        if self.shared is not None:
            return self.shared
        replies = [
            reply if isinstance(reply, str) else ScriptedReply.model_validate(reply)
            for reply in self.suite.golden_replies(task)
        ]
        return ScriptedModel(replies, name=GOLDEN)

    async def aclose(self) -> None:
        if self.shared is not None:
            await self.shared.aclose()
        if self.client is not None:
            await self.client.aclose()
