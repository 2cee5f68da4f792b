"""A real MCP server whose tools declare no return type: the SDK sends their dicts and
lists as JSON text, with no structured content. ``python untyped.py`` serves over stdio."""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("untyped", log_level="WARNING")


@server.tool()
def quote(city: str):  # type: ignore[no-untyped-def]  # no return type on purpose
    """A hotel quote for a city."""
    return {"city": city, "nightly": 120.5, "rooms": ["single", "double"]}


@server.tool()
def cities():  # type: ignore[no-untyped-def]
    """Every city with hotels."""
    return ["Lisbon", "Oslo"]


@server.tool()
def code():  # type: ignore[no-untyped-def]
    """A booking code that reads as a number."""
    return "007"


@server.tool()
def count():  # type: ignore[no-untyped-def]
    """A text that is JSON but not an object or array."""
    return "42"


if __name__ == "__main__":
    server.run()
