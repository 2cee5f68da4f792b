"""Tools of the message_decoder domain: hex, reversal, Caesar shifts, lengths, extremes."""

from collections.abc import Callable
from typing import Any

Comparable = int | float | str


def convert_hex_to_ascii(hex_string: str) -> str:
    """Decode a hexadecimal string (e.g. '48656c6c6f') to text (UTF-8)."""
    try:
        return bytes.fromhex(hex_string).decode("utf-8")
    except ValueError as exc:
        raise ValueError(f"{hex_string!r} is not valid hex-encoded UTF-8 text: {exc}") from None


def reverse_string(string: str) -> str:
    """Return the string reversed."""
    return string[::-1]


def caesar_decode(message: str, shift: int) -> str:
    """Undo a Caesar cipher: shift each ASCII letter back by `shift`, keeping its case."""
    shift = int(shift)
    decoded = []
    for char in message:
        if "A" <= char <= "Z":
            decoded.append(chr((ord(char) - ord("A") - shift) % 26 + ord("A")))
        elif "a" <= char <= "z":
            decoded.append(chr((ord(char) - ord("a") - shift) % 26 + ord("a")))
        else:
            decoded.append(char)
    return "".join(decoded)


def string_length(string: str) -> int:
    """Return the number of characters in the string."""
    return len(string)


def _values(name: str, args: tuple[Comparable, ...]) -> list[Any]:
    if not args:
        raise ValueError(f"{name}() needs at least one argument, e.g. {name}(3, 1, 2)")
    return list(args)


def minimum_value(*args: Comparable) -> Comparable:
    """Return the smallest of the arguments, e.g. minimum_value(3, 1, 2) -> 1."""
    result: Comparable = min(_values("minimum_value", args))
    return result


def maximum_value(*args: Comparable) -> Comparable:
    """Return the largest of the arguments, e.g. maximum_value(3, 1, 2) -> 3."""
    result: Comparable = max(_values("maximum_value", args))
    return result


def make_tools() -> dict[str, Callable[..., Any]]:
    """The domain's tools by name."""
    return {
        "convert_hex_to_ascii": convert_hex_to_ascii,
        "reverse_string": reverse_string,
        "caesar_decode": caesar_decode,
        "string_length": string_length,
        "minimum_value": minimum_value,
        "maximum_value": maximum_value,
    }
