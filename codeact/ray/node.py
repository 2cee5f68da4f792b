"""`NodeSandbox`: the actor on each node — a started `Sandbox` and the sessions in it.

A session's tools (and its gate) are proxies: a call from a script becomes an event
the caller fetches (``run``/``next_event``), carries out in its own process and
answers with ``reply``. Only JSON crosses: tool names and parameter names go in, arguments and
results as JSON values, and each run's `Execution` comes back as JSON text.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import os
from collections.abc import Callable
from typing import Any

import ray

from sandbox import AsyncSandbox, AsyncSession, Sandbox, SandboxPolicy

#: Stands for a parameter's default: binding leaves defaulted parameters out, so the
#: value never matters, only that there is one.
_DEFAULT = object()


def tool_spec(name: str, fn: Callable[..., Any]) -> dict[str, Any]:
    """What the node needs to offer `fn` under `name`: its parameters' names and kinds."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {"name": name, "params": None}
    params = [
        {"name": p.name, "kind": int(p.kind), "default": p.default is not p.empty}
        for p in parameters
    ]
    return {"name": name, "params": params}


def _remote_error(kind: str, message: str) -> Exception:
    """An exception named like the one the caller's tool raised (the script sees that name)."""
    name = kind if kind.isidentifier() else "RuntimeError"
    error: Exception = type(name, (Exception,), {})(message)
    return error


class _Proxy:
    """A tool whose calls go back to the caller. A callable object, not a function, so
    that the node does not validate arguments against a signature without types: the
    caller validates them against the real one."""

    def __init__(self, spec: dict[str, Any], hosted: _Hosted) -> None:
        self.__name__ = spec["name"]
        self._hosted = hosted
        if spec["params"] is not None:
            self.__signature__ = inspect.Signature(
                [
                    inspect.Parameter(
                        p["name"],
                        inspect._ParameterKind(p["kind"]),
                        default=_DEFAULT if p["default"] else inspect.Parameter.empty,
                    )
                    for p in spec["params"]
                ]
            )

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        event = {"op": "call", "name": self.__name__, "args": list(args), "kwargs": kwargs}
        reply = await self._hosted.ask(event)
        if reply.get("ok"):
            return reply.get("value")
        raise _remote_error(str(reply.get("error_type")), str(reply.get("message", "")))


class _Hosted:
    """One session on this node and the questions waiting for the caller's answer."""

    def __init__(self) -> None:
        self.session: AsyncSession | None = None
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.ids = itertools.count(1)
        self.task: asyncio.Task[None] | None = None

    async def ask(self, event: dict[str, Any]) -> dict[str, Any]:
        """Send `event` (a tool call, or a question for the gate) to the caller and wait
        for its answer; if the wait is cancelled (the node's tool timeout), say so."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        ident = next(self.ids)
        self.waiting[ident] = future
        events = self.events
        events.put_nowait({**event, "id": ident})
        try:
            return await future
        except asyncio.CancelledError:
            events.put_nowait({"op": "abandon", "id": ident})
            raise
        finally:
            self.waiting.pop(ident, None)

    async def gate(self, name: str, arguments: dict[str, Any]) -> str | None:
        reply = await self.ask({"op": "gate", "name": name, "arguments": arguments})
        if "error_type" in reply:
            raise _remote_error(str(reply["error_type"]), str(reply.get("message", "")))
        refusal = reply.get("refusal")
        return None if refusal is None else str(refusal)

    async def execute(self, source: str) -> None:
        assert self.session is not None
        try:
            execution = await self.session.run(source)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.events.put_nowait({"op": "failed", "type": type(exc).__name__, "error": str(exc)})
        else:
            self.events.put_nowait({"op": "done", "execution": execution.model_dump_json()})


class NodeSandbox:
    """The sandbox machinery of one node, shared by `slots` sessions or samples at once."""

    def __init__(self, policy_json: str, slots: int) -> None:
        self.policy = SandboxPolicy.model_validate_json(policy_json)
        self.sandbox = Sandbox(self.policy, spares=min(4, slots))
        self.node = str(ray.get_runtime_context().get_node_id())
        self._hosted: dict[str, _Hosted] = {}

    async def ready(self) -> dict[str, Any]:
        """Start the zygote; where this actor runs."""
        await asyncio.to_thread(self.sandbox.start)
        actor = ray.get_runtime_context().get_actor_id()
        return {"node": self.node, "pid": os.getpid(), "actor": actor}

    async def open_session(self, sid: str, spec: dict[str, Any]) -> int | None:
        """A session with proxies of the caller's tools (and gate); its worker's pid.

        `spec`: ``policy`` (the caller's digest), ``tools`` (`tool_spec` of each),
        ``timeouts`` (per-tool overrides) and ``gated``."""
        if spec["policy"] != self.policy.digest():
            raise ValueError("the caller's policy is not this node's")
        hosted = _Hosted()
        proxies = {tool["name"]: _Proxy(tool, hosted) for tool in spec["tools"]}
        session = AsyncSandbox.wrap(self.sandbox).session(
            proxies,
            gate=hosted.gate if spec["gated"] else None,
            tool_timeouts=spec["timeouts"],
        )
        hosted.session = await session.start()
        self._hosted[sid] = hosted
        return session.pid

    async def run(self, sid: str, source: str) -> dict[str, Any]:
        """Start a run of `source`; its first event (a tool call, or the end)."""
        hosted = self._hosted[sid]
        # Each run has its own queue: a caller's call still waiting on the last one
        # (a run that was cancelled) is woken by `cancel` and never sees this run's events.
        hosted.events = asyncio.Queue()
        hosted.task = asyncio.create_task(hosted.execute(source))
        return await hosted.events.get()

    async def next_event(self, sid: str) -> dict[str, Any]:
        return await self._hosted[sid].events.get()

    async def reply(self, sid: str, ident: int, reply: dict[str, Any]) -> None:
        """The caller's answer to a tool call or a gate question."""
        future = self._hosted[sid].waiting.get(ident)
        if future is not None and not future.done():
            future.set_result(reply)

    async def cancel(self, sid: str) -> int | None:
        """Stop the running script (its worker is killed); the session's next pid."""
        hosted = self._hosted.get(sid)
        if hosted is None:
            return None
        if hosted.task is not None and not hosted.task.done():
            hosted.task.cancel()
            await asyncio.wait([hosted.task])
        for future in hosted.waiting.values():
            future.cancel()
        hosted.events.put_nowait({"op": "cancelled"})
        return hosted.session.pid if hosted.session else None

    async def close_session(self, sid: str) -> None:
        await self.cancel(sid)
        hosted = self._hosted.pop(sid, None)
        if hosted is not None and hosted.session is not None:
            await hosted.session.close()

    async def shutdown(self) -> None:
        """End every session and stop the zygote (before the actor is killed)."""
        for sid in list(self._hosted):
            await self.close_session(sid)
        await asyncio.to_thread(self.sandbox.close)

    async def pid(self) -> int:
        """This actor's process id (tests kill it to inject a node failure)."""
        return os.getpid()

    async def health(self) -> str:
        """This node's :meth:`Sandbox.health`, as JSON."""
        return self.sandbox.health().model_dump_json()
