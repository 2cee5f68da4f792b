"""MCP (Model Context Protocol): servers' tools as Python functions for scripts, and the
sandbox offered as an MCP server (``codeact mcp serve``). Needs ``codeact[mcp]``."""

from codeact.errors import MCPConnectionError
from codeact.mcp.client import (
    MCPServer,
    MCPServerHTTP,
    MCPServerStdio,
    connect,
    server_from_string,
)

__all__ = [
    "MCPConnectionError",
    "MCPServer",
    "MCPServerHTTP",
    "MCPServerStdio",
    "connect",
    "server_from_string",
]
