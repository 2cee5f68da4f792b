"""The sandbox as an MCP server: ``codeact mcp serve``.

Tools: ``run_python(code, session_id=None)`` runs a script and returns its
:class:`sandbox.Execution` as structured content; with a ``session_id`` the script runs
in a named session whose variables persist between calls (created on first use);
``close_session(session_id)`` ends one. Sessions expire after ``idle_s`` without a call
and at most ``max_sessions`` live at once (a new one beyond that is refused with a clear
error, never by silently dropping another client's variables).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from sandbox import AsyncSandbox, AsyncSession, SandboxError, SandboxHealth, SandboxPolicy


class SessionLimitReached(RuntimeError):
    """More named sessions were asked for than the server keeps."""


@dataclass
class _Named:
    session: AsyncSession
    last_used: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class SandboxService:
    """One started sandbox and the named sessions of the clients that use it."""

    def __init__(self, policy: SandboxPolicy, *, max_sessions: int = 16, idle_s: float = 600.0):
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        if idle_s <= 0:
            raise ValueError("idle_s must be positive")
        self.policy = policy
        self.max_sessions = max_sessions
        self.idle_s = idle_s
        self._sandbox = AsyncSandbox(policy)
        self._named: dict[str, _Named] = {}
        self._reaper: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[SandboxService]:
        """Start the sandbox and the idle reaper; stop both (and every session) after."""
        await self._sandbox.start()
        self._reaper = asyncio.create_task(self._reap())
        try:
            yield self
        finally:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            for name in list(self._named):
                await self.close_session(name)
            await self._sandbox.close()

    async def run_python(self, code: str, session_id: str | None = None) -> dict[str, Any]:
        """Run ``code``; the Execution as JSON (``output``, ``stdout``, ``error_code``, …)."""
        if session_id is None:
            async with self._sandbox.session() as session:
                execution = await session.run(code)
        else:
            named = await self._named_session(session_id)
            async with named.lock:
                execution = await named.session.run(code)
                named.last_used = time.monotonic()
        return execution.model_dump(mode="json")

    async def close_session(self, session_id: str) -> bool:
        """End a named session; False when there was none by that name."""
        named = self._named.pop(session_id, None)
        if named is None:
            return False
        await named.session.close()
        return True

    def health(self) -> SandboxHealth:
        """The sandbox's figures (sessions open, admission, ...)."""
        return self._sandbox.health()

    def session_ids(self) -> list[str]:
        """The live named sessions."""
        return list(self._named)

    async def _named_session(self, session_id: str) -> _Named:
        if not session_id or len(session_id) > 200:
            raise ValueError("session_id must be a non-empty string of at most 200 characters")
        named = self._named.get(session_id)
        if named is None:
            # The limit checked and the name reserved in one step, with no await between:
            # clients arriving at once can neither pass the limit together nor start two
            # workers for one name (the second waits for the first one's start).
            if len(self._named) >= self.max_sessions:
                raise SessionLimitReached(
                    f"this server keeps at most {self.max_sessions} sessions; close one with "
                    f"close_session or let an idle one expire (after {self.idle_s:g} s)"
                )
            named = self._named[session_id] = _Named(self._sandbox.session())
        named.last_used = time.monotonic()
        try:
            await named.session.start()
        except BaseException:
            if self._named.get(session_id) is named:
                del self._named[session_id]  # a failed start leaves its name free
            await named.session.close()
            raise
        return named

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(min(self.idle_s / 4, 5.0))
            now = time.monotonic()
            for name, named in list(self._named.items()):
                if now - named.last_used > self.idle_s and not named.lock.locked():
                    await self.close_session(name)


def build_server(service: SandboxService) -> Any:
    """An ``mcp`` MCPServer exposing ``run_python`` and ``close_session``."""
    from mcp.server import MCPServer

    server = MCPServer(
        "codeact-sandbox",
        instructions=(
            "Runs Python in an isolated, resource-limited sandbox. Pass session_id to keep "
            "variables between calls."
        ),
    )

    @server.tool()
    async def run_python(code: str, session_id: str | None = None) -> dict[str, Any]:
        """Run a Python script in the sandbox and return what it did: `output` (its
        result: observation, final_result, error), `stdout`, `error_code` (null when it
        ran), timings and resource use. Give `session_id` to keep variables between
        calls (a session expires when idle)."""
        with refusals_as_tool_errors():
            return await service.run_python(code, session_id)

    @server.tool()
    async def close_session(session_id: str) -> bool:
        """End a named session and free its worker; false if there was none."""
        with refusals_as_tool_errors():
            return await service.close_session(session_id)

    return server


@contextlib.contextmanager
def refusals_as_tool_errors() -> Iterator[None]:
    """A refusal or a failure of the sandbox reaches the client as the tool's error,
    with its message (anything else would reach it as "Error executing tool", and its
    traceback the server's stderr)."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        yield
    except (SessionLimitReached, ValueError, SandboxError) as exc:
        raise ToolError(str(exc)) from None


async def serve(
    policy: SandboxPolicy,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    max_sessions: int = 16,
    idle_s: float = 600.0,
) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (http)."""
    service = SandboxService(policy, max_sessions=max_sessions, idle_s=idle_s)
    async with service.running():
        server = build_server(service)
        if transport == "stdio":
            await server.run_stdio_async()
        elif transport == "http":
            await server.run_streamable_http_async(host=host, port=port)
        else:
            raise ValueError(f"transport must be 'stdio' or 'http', not {transport!r}")
