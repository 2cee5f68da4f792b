"""AutoGen: :class:`CodeactCodeExecutor`, an ``autogen_core`` ``CodeExecutor`` that runs
Python blocks in a sandbox session.

What maps onto what:

- ``execute_code_blocks(blocks, token)``: every block must be Python (``python``,
  ``py``, ``python3``); another language is refused before any block runs (exit code
  1, the output says which and why). The blocks run one after another in one session,
  as a Jupyter kernel runs cells: variables persist across blocks and calls. The first
  failing block stops the rest.
- ``CodeResult.output``: what the blocks printed, then the failing block's error (a
  traceback of the script's own lines, or the limit it hit); ``exit_code`` 0, or 1 on
  an error.
- ``cancellation_token``: cancelling it kills the worker; the run ends as cancelled.
- ``restart()``: a fresh session (variables gone); ``start()``/``stop()``, or
  ``async with``: the sandbox's life, when the executor started it.
- ``tools``: host functions the code calls over the worker's channel (they run in the
  caller's process, on its event loop when async).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from autogen_core import CancellationToken
from autogen_core.code_executor import CodeBlock, CodeExecutor, CodeResult

from sandbox import AsyncSandbox, AsyncSession, SandboxPolicy

__all__ = ["PYTHON_LANGUAGES", "CodeactCodeExecutor"]

#: The language names of a block that runs (compared in lower case).
PYTHON_LANGUAGES = frozenset({"python", "py", "python3"})


class CodeactCodeExecutor(CodeExecutor):
    """An AutoGen code executor whose Python blocks run in a codeact sandbox.

    ``policy`` (a :class:`~sandbox.SandboxPolicy` or a preset name, default
    ``"default"``) is that of the sandbox the executor starts; or pass a started
    :class:`~sandbox.AsyncSandbox` to share one (it is then the caller's to close).
    """

    def __init__(
        self,
        *,
        policy: SandboxPolicy | str | None = None,
        sandbox: AsyncSandbox | None = None,
        tools: Mapping[str, Callable[..., Any]] | None = None,
    ) -> None:
        self._policy = policy
        self._sandbox = sandbox
        self._own_sandbox = sandbox is None
        self._tools = dict(tools or {})
        self._session: AsyncSession | None = None

    async def execute_code_blocks(
        self, code_blocks: list[CodeBlock], cancellation_token: CancellationToken
    ) -> CodeResult:
        """Run ``code_blocks`` in order; see the module docstring."""
        refused = [b.language for b in code_blocks if b.language.lower() not in PYTHON_LANGUAGES]
        if refused:
            return CodeResult(
                exit_code=1,
                output=f"unsupported language {', '.join(map(repr, refused))}: this executor "
                "runs Python blocks only (```python), in a sandbox; no block was run",
            )
        session = await self._ensure_session()
        printed: list[str] = []
        for block in code_blocks:
            run = asyncio.ensure_future(session.run(block.code))
            cancellation_token.link_future(run)
            execution = await run
            printed.append(execution.stdout)
            if execution.output.type == "error":
                printed.append(execution.output.message + "\n")
                return CodeResult(exit_code=1, output="".join(printed))
        return CodeResult(exit_code=0, output="".join(printed))

    async def start(self) -> None:
        """Start the sandbox (if the executor owns it) and a session."""
        await self._ensure_session()

    async def stop(self) -> None:
        """End the session, and stop the sandbox if the executor started it."""
        await self._close_session()
        if self._own_sandbox and self._sandbox is not None:
            await self._sandbox.close()
            self._sandbox = None

    async def restart(self) -> None:
        """A fresh session: the variables of earlier blocks are gone."""
        await self._close_session()
        await self._ensure_session()

    async def _ensure_session(self) -> AsyncSession:
        if self._session is None:
            if self._sandbox is None:
                self._sandbox = await AsyncSandbox(self._policy).start()
            self._session = await self._sandbox.session(self._tools).start()
        return self._session

    async def _close_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()
