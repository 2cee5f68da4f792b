"""The escapes corpus: well formed, and nothing escapes the default policy."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from sandbox import SandboxPolicy
from sandbox.probe import CaseResult, run_suite
from sandbox.probe.arena import PLACEHOLDERS
from sandbox.probe.corpus import CATEGORIES, load_corpus

PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


def test_corpus_is_complete_and_well_formed() -> None:
    cases = load_corpus()
    assert len(cases) >= 120
    per_category = Counter(case.category for case in cases)
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 4, per_category
    for case in cases:
        assert case.source.startswith(f"# id: {case.id}\n"), case.path
        assert case.expected in ("rejected", "contained")
        unknown = set(PLACEHOLDER.findall(case.source)) - set(PLACEHOLDERS)
        assert not unknown, f"{case.id} uses unknown placeholders {unknown}"


@pytest.fixture(scope="module")
def default_results() -> list[CaseResult]:
    return run_suite(SandboxPolicy.preset("default"), "escapes")


@pytest.mark.timeout(300)
def test_nothing_escapes_the_default_policy(default_results: list[CaseResult]) -> None:
    escaped = [f"{r.id}: {r.detail}" for r in default_results if r.outcome == "escaped"]
    assert not escaped


@pytest.mark.timeout(300)
def test_each_case_ends_as_its_header_expects(default_results: list[CaseResult]) -> None:
    wrong = [
        f"{r.id}: {r.outcome} (expected {r.expected}) — {r.detail}"
        for r in default_results
        if r.outcome != r.expected
    ]
    assert not wrong
    assert len(default_results) == len(load_corpus())
