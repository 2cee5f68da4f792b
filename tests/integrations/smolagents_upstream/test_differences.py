"""The table of differences names real tests of smolagents' executor module."""

from __future__ import annotations

from pathlib import Path

import pytest

from .differences import DIFFERENCES

UPSTREAM = Path(__file__).with_name("test_local_python_executor.py")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("upstream", sorted(DIFFERENCES))
def test_each_difference_names_an_upstream_test(upstream: str) -> None:
    cls, _, name = upstream.partition("::")
    source = UPSTREAM.read_text()
    assert f"class {cls}" in source and f"def {name.split('[')[0]}(" in source, upstream


def test_every_difference_has_a_reason() -> None:
    assert all(len(d.reason) > 40 for d in DIFFERENCES.values())


def test_the_documentation_counts_them() -> None:
    page = Path(__file__).parents[3] / "docs" / "integrations.md"
    assert f"{len(DIFFERENCES)} differ" in page.read_text()
