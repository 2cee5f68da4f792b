"""A small MCP server, written with the official SDK, for the README's examples.

``python examples/mcp_weather_server.py`` serves its tools over stdio.
"""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("weather", log_level="WARNING")


@server.tool()
def forecast(city: str, days: int = 3) -> dict[str, object]:
    """The forecast for a city: a high temperature (°C) per day."""
    return {"city": city, "highs": [18 + (len(city) + d) % 7 for d in range(days)]}


@server.tool(name="warm-cities")
def warm_cities(min_high: int) -> list[str]:
    """Cities whose high tomorrow is at least min_high °C."""
    return [c for c in ("Lisbon", "Oslo", "Rome") if 18 + (len(c) + 1) % 7 >= min_high]


if __name__ == "__main__":
    server.run()
