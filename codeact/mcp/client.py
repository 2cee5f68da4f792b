"""MCP servers as sources of tools: each server tool becomes a plain Python function.

``MCPServerStdio(["python", "server.py"])`` starts a server as a subprocess;
``MCPServerHTTP("http://127.0.0.1:8000/mcp")`` talks streamable HTTP. :func:`connect`
opens every server on an exit stack, lists its tools and returns them as
:class:`codeact.Tool` objects whose functions validate their arguments against the
tool's ``inputSchema``, call the server, and give back ``structuredContent`` as JSON
values or the text content as a string; a result with ``isError`` raises
``RuntimeError`` with the server's message, and so does a server that went away.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import jsonschema

from codeact.errors import MCPConnectionError
from codeact.mcp.signature import python_identifier, signature_for, wrapped_result
from codeact.tools import RESERVED_TOOL_NAMES, Tool

if TYPE_CHECKING:
    from mcp import Client

_log = logging.getLogger("codeact.mcp")


@dataclass(frozen=True)
class MCPServerStdio:
    """An MCP server started as a subprocess and spoken to over its stdin and stdout.

    ``command`` is a list (``["python", "server.py"]``) or a shell-like string.
    ``name`` prefixes tool names that collide (default: the name the server gives).
    """

    command: Sequence[str] | str
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    name: str | None = None
    connect_timeout_s: float = 30.0
    call_timeout_s: float | None = 60.0

    def argv(self) -> list[str]:
        """The command as a list of words."""
        words = shlex.split(self.command) if isinstance(self.command, str) else list(self.command)
        if not words:
            raise ValueError("MCPServerStdio needs a command")
        return words

    def label(self) -> str:
        """How errors name this server."""
        return self.name or shlex.join(self.argv())


@dataclass(frozen=True)
class MCPServerHTTP:
    """An MCP server reached over streamable HTTP at ``url``."""

    url: str
    name: str | None = None
    connect_timeout_s: float = 30.0
    call_timeout_s: float | None = 60.0
    headers: Mapping[str, str] = field(default_factory=dict)

    def label(self) -> str:
        """How errors name this server."""
        return self.name or self.url


MCPServer = MCPServerStdio | MCPServerHTTP


def server_from_string(text: str) -> MCPServer:
    """``http(s)://...`` is an HTTP server; anything else a command line to start."""
    if text.startswith(("http://", "https://")):
        return MCPServerHTTP(text)
    return MCPServerStdio(text)


def _import_mcp() -> Any:
    try:
        import mcp
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise MCPConnectionError(
            "MCP servers need the official SDK: pip install 'codeact[mcp]'"
        ) from exc
    return mcp


def _client_for(server: MCPServer, errlog: TextIO) -> Client:
    mcp = _import_mcp()
    if isinstance(server, MCPServerStdio):
        from mcp.client.stdio import StdioServerParameters, stdio_client

        argv = server.argv()
        params = StdioServerParameters(
            command=argv[0], args=argv[1:], env=dict(server.env or {}) or None, cwd=server.cwd
        )
        return mcp.Client(stdio_client(params, errlog=errlog))  # type: ignore[no-any-return]
    if server.headers:
        import httpx2  # the SDK's HTTP client
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(headers=dict(server.headers))
        return mcp.Client(streamable_http_client(server.url, http_client=http))  # type: ignore[no-any-return]
    return mcp.Client(server.url)  # type: ignore[no-any-return]


@dataclass
class ConnectedServer:
    """One open connection: the spec, the SDK client, the server's name and its tools."""

    spec: MCPServer
    client: Any
    name: str
    tools: list[Any]


async def open_server(stack: contextlib.AsyncExitStack, server: MCPServer) -> ConnectedServer:
    """Connect and list tools within ``server.connect_timeout_s``; clear errors otherwise."""
    # The server's stderr is kept for error messages; the stack closes the file.
    errlog: TextIO = stack.enter_context(
        tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
    )
    client = _client_for(server, errlog if isinstance(server, MCPServerStdio) else sys.stderr)
    try:
        async with asyncio.timeout(server.connect_timeout_s):
            await stack.enter_async_context(client)
            listing = await client.list_tools()
            tools = list(listing.tools)
            while listing.next_cursor:
                listing = await client.list_tools(cursor=listing.next_cursor)
                tools.extend(listing.tools)
    except Exception as exc:  # any failure to connect is reported the same way
        raise MCPConnectionError(_connect_failure(server, exc, errlog)) from exc
    info = getattr(client, "server_info", None)
    name = server.name or getattr(info, "name", None) or "mcp"
    _log.info("connected to MCP server %r: %d tool(s)", server.label(), len(tools))
    return ConnectedServer(server, client, python_identifier(name), tools)


def _connect_failure(server: MCPServer, exc: BaseException, errlog: TextIO) -> str:
    reason = (
        f"no answer within {server.connect_timeout_s:g} s"
        if isinstance(exc, TimeoutError)
        else _describe(exc)
    )
    text = f"MCP server {server.label()!r} could not be used: {reason}"
    with contextlib.suppress(OSError, ValueError):
        errlog.seek(0)
        tail = errlog.read()[-600:].strip()
        if tail:
            text += f"\nits stderr ended with:\n{tail}"
    return text


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def connect(
    stack: contextlib.AsyncExitStack, servers: Sequence[MCPServer], taken: set[str] = frozenset()  # type: ignore[assignment]
) -> list[Tool]:
    """Open every server on ``stack`` and return their tools as :class:`Tool` objects.

    A tool is named after its MCP name made an identifier; where two servers offer the
    same name, or a name in ``taken`` (the agent's own tools), it is prefixed with the
    server's name (``weather_lookup``).
    """
    connected = [await open_server(stack, server) for server in servers]
    counts: dict[str, int] = {}
    for conn in connected:
        for item in conn.tools:
            ident = python_identifier(item.name)
            counts[ident] = counts.get(ident, 0) + 1
    tools: list[Tool] = []
    names = set(taken)
    for conn in connected:
        for item in conn.tools:
            ident = python_identifier(item.name)
            if counts[ident] > 1 or ident in names or _reserved(ident):
                ident = python_identifier(f"{conn.name}_{ident}")
            if ident in names:
                raise MCPConnectionError(
                    f"MCP server {conn.spec.label()!r}: tool {item.name!r} collides with "
                    f"{ident!r} even with the server's name as a prefix"
                )
            names.add(ident)
            tools.append(mcp_tool(conn, item, ident))
    return tools


def _reserved(name: str) -> bool:
    return name in RESERVED_TOOL_NAMES


def mcp_tool(conn: ConnectedServer, item: Any, ident: str) -> Tool:
    """A :class:`Tool` whose function calls ``item`` on ``conn``."""
    try:
        signature = signature_for(item.input_schema, item.output_schema)
    except ValueError as exc:
        raise MCPConnectionError(
            f"MCP server {conn.spec.label()!r}: tool {item.name!r}: {exc}"
        ) from exc
    fn = _caller(conn, item, signature)
    fn.__name__ = fn.__qualname__ = ident
    fn.__doc__ = item.description or f"The {item.name!r} tool of MCP server {conn.name!r}."
    fn.__signature__ = signature
    fn.__annotations__ = {
        **{p.name: p.annotation for p in signature.parameters.values()},
        "return": signature.return_annotation,
    }
    return Tool(fn, ident, timeout_s=conn.spec.call_timeout_s)


def _caller(conn: ConnectedServer, item: Any, signature: inspect.Signature) -> Any:
    schema = item.input_schema if isinstance(item.input_schema, Mapping) else {"type": "object"}
    label = f"MCP tool {item.name!r} of server {conn.spec.label()!r}"

    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            arguments = dict(signature.bind(*args, **kwargs).arguments)
        except TypeError as exc:
            raise TypeError(f"{call.__name__}(): {exc}") from None
        try:
            jsonschema.validate(arguments, schema)
        except jsonschema.ValidationError as exc:
            where = ".".join(str(p) for p in exc.absolute_path) or "arguments"
            raise TypeError(f"{call.__name__}(): {where}: {exc.message}") from None
        try:
            result = await conn.client.call_tool(
                item.name, arguments, read_timeout_seconds=conn.spec.call_timeout_s
            )
        except Exception as exc:  # the server went away or broke the protocol
            raise RuntimeError(f"{label} failed: {_describe(exc)}") from None
        return tool_result(result, item.output_schema, label)

    return call


def tool_result(result: Any, output_schema: Any, label: str) -> Any:
    """``structuredContent`` as JSON (unwrapped from ``{"result": ...}``), else a single
    text content that is a JSON object or array as that JSON, else the text."""
    if result.is_error:
        raise RuntimeError(_text(result.content) or f"{label} reported an error")
    structured = result.structured_content
    if structured is not None:
        if wrapped_result(output_schema) is not None and set(structured) == {"result"}:
            return structured["result"]
        return structured
    data = _json_text(result.content)
    return data if data is not None else _text(result.content)


def _json_text(content: Sequence[Any]) -> dict[str, Any] | list[Any] | None:
    # SDK servers send a tool's dict or list as JSON text when it has no output schema.
    # Only objects and arrays are taken: a text that happens to read as a number, a
    # string or `true` stays the text the tool returned.
    if len(content) != 1 or not isinstance(getattr(content[0], "text", None), str):
        return None
    text = content[0].text.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict | list) else None


def _text(content: Sequence[Any]) -> str:
    parts = []
    for block in content:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            kind = getattr(block, "type", "content")
            mime = getattr(block, "mime_type", None)
            parts.append(f"[{kind}{' ' + mime if mime else ''}]")
    return "\n".join(parts)


class MCPConnections:
    """MCP connections owned by one task of their own.

    The SDK's connections hold task groups that must be closed by the task that opened
    them; an agent run opens them in one task and cleans up in another, so a keeper
    task opens every connection asked for and closes them all on :meth:`aclose`.
    """

    def __init__(self) -> None:
        self._requests: asyncio.Queue[Any] = asyncio.Queue()
        self._keeper: asyncio.Task[None] | None = None

    async def connect(self, servers: Sequence[MCPServer], taken: set[str]) -> list[Tool]:
        """:func:`connect` in the keeper task; its tools, or its exception."""
        if self._keeper is None:
            self._keeper = asyncio.create_task(self._keep(), name="mcp-connections")
        answer: asyncio.Future[list[Tool]] = asyncio.get_running_loop().create_future()
        await self._requests.put((servers, taken, answer))
        return await answer

    async def aclose(self) -> None:
        """Close every connection (and stop the servers started as subprocesses)."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            await self._requests.put(None)
            await keeper

    async def _keep(self) -> None:
        async with contextlib.AsyncExitStack() as stack:
            while (request := await self._requests.get()) is not None:
                servers, taken, answer = request
                try:
                    tools = await connect(stack, servers, taken)
                except Exception as exc:
                    if not answer.done():
                        answer.set_exception(exc)
                else:
                    if not answer.done():
                        answer.set_result(tools)
