"""A second MCP server for the tests: its ``book`` collides with travel's."""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("weather", log_level="WARNING")


@server.tool()
def forecast(city: str, days: int = 3) -> dict[str, object]:
    """The forecast for a city."""
    return {"city": city, "days": [{"day": d, "high": 20 + d} for d in range(days)]}


@server.tool()
def book(city: str) -> str:
    """Book a weather alert for a city."""
    return f"alert booked for {city}"


if __name__ == "__main__":
    server.run()
