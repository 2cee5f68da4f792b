"""Host tools for the README's agent example: a tiny flight and hotel table."""

from __future__ import annotations

FLIGHTS = [
    {"from": "E", "to": "B", "date": "2023-11-10", "carrier": "Aero", "price": 312.0},
    {"from": "E", "to": "B", "date": "2023-11-10", "carrier": "Budget", "price": 189.5},
    {"from": "E", "to": "B", "date": "2023-11-11", "carrier": "Budget", "price": 149.0},
    {"from": "B", "to": "E", "date": "2023-11-12", "carrier": "Aero", "price": 275.0},
]
HOTELS = [
    {"city": "B", "name": "Harbour Inn", "price_per_night": 120.0, "rating": 4.1},
    {"city": "B", "name": "Old Town Rooms", "price_per_night": 95.0, "rating": 3.6},
    {"city": "B", "name": "Grand B", "price_per_night": 240.0, "rating": 4.8},
]


def find_flights(from_location: str, to_location: str, date: str) -> list[dict]:
    """Flights between two locations on a date (YYYY-MM-DD), each with carrier and price."""
    return [
        f for f in FLIGHTS if (f["from"], f["to"], f["date"]) == (from_location, to_location, date)
    ]


def find_hotels(city: str, min_rating: float = 0.0) -> list[dict]:
    """Hotels in a city with at least `min_rating`, each with price_per_night and rating."""
    hotels = [h for h in HOTELS if h["city"] == city and h["rating"] >= min_rating]
    if not hotels:
        raise ValueError(f"no hotels in {city!r} with rating >= {min_rating}")
    return hotels


TOOLS = [find_flights, find_hotels]
