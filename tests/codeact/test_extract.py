"""Code extraction from model replies."""

from __future__ import annotations

import pytest

from codeact.extract import extract_code

F = "`" * 3


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (f"Sure.\n{F}python\nx = 1\n{F}\nDone.", "x = 1"),
        (f"{F}py\nprint(2)\n{F}", "print(2)"),
        (f"{F}Python3\nprint(3)\n{F}", "print(3)"),
        (f"   {F}python\n    if x:\n        y = 1\n   {F}", "if x:\n    y = 1"),
        (f"{F}\nprint('unlabelled')\n{F}", "print('unlabelled')"),
        ("<code>\nz = 3\n</code>", "z = 3"),
        ("total = sum([1, 2])\nfinal_result(total)", "total = sum([1, 2])\nfinal_result(total)"),
        ("~~~python\nq = 1\n~~~", "q = 1"),
    ],
)
def test_variants(reply: str, code: str) -> None:
    assert extract_code(reply) == code


@pytest.mark.parametrize(
    "reply",
    [
        "I think the answer is 42.",
        "done",
        "42",
        "",
        f'{F}json\n{{"a": 1}}\n{F}',
        f"{F}\nnot python at all (\n{F}",
    ],
)
def test_no_code(reply: str) -> None:
    assert extract_code(reply) is None


def test_several_blocks_join_first_last() -> None:
    reply = f"{F}python\na = 1\n{F}\nthen\n{F}python\nb = a + 1\n{F}"
    assert extract_code(reply) == "a = 1\n\nb = a + 1"
    assert extract_code(reply, "first") == "a = 1"
    assert extract_code(reply, "last") == "b = a + 1"


def test_fenced_blocks_win_over_code_tags() -> None:
    reply = f"<code>x = 0</code>\n{F}python\ny = 1\n{F}"
    assert extract_code(reply) == "y = 1"
