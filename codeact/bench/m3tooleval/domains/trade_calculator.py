"""Tools of the trade_calculator domain: conversion, tariffs, final values, extremes."""

from collections.abc import Callable
from typing import Any

from codeact.bench.m3tooleval.calculator import calculator

Number = int | float


def convert_currency(base_price: int | float, conversion_rate: int | float) -> int | float:
    """Convert a price to local currency: base_price * conversion_rate."""
    return base_price * conversion_rate


def calculate_tariff(price: int | float, tariff_rate: int | float) -> int | float:
    """The tariff on a price at tariff_rate percent: price * tariff_rate / 100."""
    return price * tariff_rate / 100


def estimate_final_value(price: int | float, tariff: int | float) -> int | float:
    """The final trade value including the tariff: price + tariff."""
    return price + tariff


def _numbers(name: str, args: tuple[Number, ...]) -> tuple[Number, ...]:
    if not args:
        raise ValueError(f"{name}() needs at least one number, e.g. {name}(3.5, 1.2)")
    return args


def find_minimum(*args: int | float) -> int | float:
    """The smallest of the numbers given as arguments, e.g. find_minimum(3.5, 1.2) -> 1.2."""
    return min(_numbers("find_minimum", args))


def find_maximum(*args: int | float) -> int | float:
    """The largest of the numbers given as arguments, e.g. find_maximum(3.5, 1.2) -> 3.5."""
    return max(_numbers("find_maximum", args))


def make_tools() -> dict[str, Callable[..., Any]]:
    """The domain's tools by name."""
    return {
        "convert_currency": convert_currency,
        "calculate_tariff": calculate_tariff,
        "estimate_final_value": estimate_final_value,
        "calculator": calculator,
        "find_minimum": find_minimum,
        "find_maximum": find_maximum,
    }
