"""A real MCP server for the tests, built with the SDK's own server class.

``python travel.py`` serves over stdio; ``python travel.py http PORT`` over streamable
HTTP on 127.0.0.1. Its tools take nested arguments, return structured content, fail on
purpose, and one is slow.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("travel", log_level="WARNING")


@server.tool(name="find-flights")
def find_flights(origin: str, destination: str, max_stops: int = 1) -> list[dict[str, Any]]:
    """Flights from origin to destination with at most max_stops stops."""
    return [
        {"carrier": "Aero", "price": 312.0, "stops": 0, "route": [origin, destination]},
        {"carrier": "Budget", "price": 189.5, "stops": 1, "route": [origin, "X", destination]},
    ][: max_stops + 1]


@server.tool()
def book(trip: dict[str, Any], travellers: list[str]) -> dict[str, Any]:
    """Book a trip for the travellers; trip is {"flight": {...}, "nights": int}."""
    nights = int(trip.get("nights", 0))
    return {"confirmed": True, "travellers": len(travellers), "nights": nights,
            "carrier": trip["flight"]["carrier"]}


@server.tool()
def cancel(booking_id: str) -> str:
    """Cancel a booking (always refused: this server cannot cancel)."""
    raise ToolError(f"booking {booking_id} cannot be cancelled online")


@server.tool()
def slow(seconds: float) -> str:
    """Sleep for a while, then answer."""
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def pid() -> int:
    """The server's process id."""
    import os

    return os.getpid()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", port=int(sys.argv[2]))
    else:
        server.run()
