"""The table of differences names real upstream tests and real covering tests."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from .conftest import expected_failure
from .differences import DIFFERENCES, FAILS_WITH

TESTS = Path(__file__).parents[1]
UPSTREAM = Path(__file__).parent / "upstream"


@cache
def _test_ids(path: Path) -> frozenset[str]:
    """``test_f`` and ``TestC::test_m`` of a test module, found without importing it."""
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.update(
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return frozenset(name for name in found if "test" in name.lower())


def _exists(root: Path, test_id: str) -> bool:
    path, _, name = test_id.partition("::")
    file = root / path
    return file.is_file() and name.split("[")[0] in _test_ids(file)


@pytest.mark.parametrize("upstream", sorted(DIFFERENCES))
def test_each_difference_names_an_upstream_test(upstream: str) -> None:
    assert _exists(UPSTREAM, upstream), f"no upstream test {upstream}"


@pytest.mark.parametrize("covering", sorted({d.covered_by for d in DIFFERENCES.values()}))
def test_each_covering_test_exists(covering: str) -> None:
    assert _exists(TESTS, covering), f"no test {covering}"


def test_every_difference_has_a_reason() -> None:
    assert all(len(d.reason) > 40 for d in DIFFERENCES.values())


@pytest.mark.timeout(10)
@pytest.mark.parametrize("upstream", sorted(DIFFERENCES))
def test_each_expected_failure_names_the_exception_it_fails_with(upstream: str) -> None:
    mark = expected_failure(upstream)
    assert mark is not None
    raises = mark.kwargs.get("raises")
    # A bare xfail (or one expecting any Exception) would pass a test that broke for
    # an unrelated reason as an expected failure.
    assert raises is not None and raises not in (Exception, BaseException), mark.kwargs
    assert mark.kwargs["strict"] is True


@pytest.mark.timeout(10)
def test_each_listed_exception_belongs_to_a_listed_test() -> None:
    assert set(FAILS_WITH) <= set(DIFFERENCES)
