"""Tools of the travel_itinerary_planning domain, over the tables of `travel_data.json`.

The domain's `max`, `min` and `sum` tools keep the names the benchmark gave them, so
inside a script they shadow Python's builtins: the script gets these tools, which
take numbers as separate arguments (``min(*prices)``), not an iterable or ``key=``.
"""

import builtins
import copy
import functools
import json
from collections.abc import Callable
from typing import Any

from codeact.bench.m3tooleval.tasks import DATA_DIR

TRAVEL_FILE = DATA_DIR / "travel_data.json"


@functools.cache
def travel_data() -> dict[str, Any]:
    """The locations, flights and hotels tables, loaded once."""
    data: dict[str, Any] = json.loads(TRAVEL_FILE.read_text(encoding="utf-8"))
    for key in ("locations", "flights", "hotels"):
        if not isinstance(data.get(key), list):
            raise ValueError(f"{TRAVEL_FILE}: {key!r} must be a list")
    return data


def _location(value: str, role: str) -> str:
    location = value.strip('"')
    supported: list[str] = travel_data()["locations"]
    if location not in supported:
        raise ValueError(f"{role} [{location}] is not supported. Supported locations: {supported}")
    return location


def find_flights(from_location: str, to_location: str, date: str) -> list[dict[str, Any]]:
    """Flights on date (YYYY-MM-DD); keys: from_location, to_location, date, price."""
    origin = _location(from_location, "Origin")
    destination = _location(to_location, "Destination")
    return [
        copy.deepcopy(flight)
        for flight in travel_data()["flights"]
        if flight["from_location"] == origin
        and flight["to_location"] == destination
        and flight["date"] == date
    ]


def book_hotel(location: str, *preferences: str) -> list[dict[str, Any]]:
    """Hotels at location with every preference given (e.g. "wifi", "pool", "gym")."""
    place = _location(location, "Location")
    return [
        copy.deepcopy(hotel)
        for hotel in travel_data()["hotels"]
        if hotel["location"] == place and all(p in hotel["preferences"] for p in preferences)
    ]


def budget_calculator(
    flight_price: int | float, hotel_price_per_night: int | float, num_nights: int
) -> int | float:
    """Total trip budget: flight_price + hotel_price_per_night * num_nights."""
    return flight_price + hotel_price_per_night * num_nights


def _numbers(name: str, args: tuple[int | float, ...]) -> tuple[int | float, ...]:
    if not args:
        raise ValueError(f"{name}() needs at least one number, e.g. {name}(450, 360)")
    return args


def max_(*args: int | float) -> int | float:
    """The largest number among the arguments (this tool shadows the builtin max)."""
    return builtins.max(_numbers("max", args))


def min_(*args: int | float) -> int | float:
    """The smallest number among the arguments (this tool shadows the builtin min)."""
    return builtins.min(_numbers("min", args))


def sum_(*args: int | float) -> int | float:
    """The sum of the numbers given as arguments (this tool shadows the builtin sum)."""
    return builtins.sum(args)


for _tool, _name in ((max_, "max"), (min_, "min"), (sum_, "sum")):
    _tool.__name__ = _tool.__qualname__ = _name


def make_tools() -> dict[str, Callable[..., Any]]:
    """The domain's tools by name; `max`, `min`, `sum` deliberately shadow the builtins."""
    return {
        "find_flights": find_flights,
        "book_hotel": book_hotel,
        "budget_calculator": budget_calculator,
        "max": max_,
        "min": min_,
        "sum": sum_,
    }
