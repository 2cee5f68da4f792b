"""LlmUsage: totals, sums and the flattening of provider details."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from codeact.usage import LlmUsage, flatten_counters


def test_total_is_derived_when_missing_and_kept_when_given() -> None:
    assert LlmUsage(input_tokens=3, output_tokens=4).total_tokens == 7
    assert LlmUsage(input_tokens=3, output_tokens=4, total_tokens=9).total_tokens == 9
    assert LlmUsage().total_tokens == 0
    assert LlmUsage().is_empty() and not LlmUsage(output_tokens=1).is_empty()


def test_openai_names_are_aliases() -> None:
    usage = LlmUsage(input_tokens=5, output_tokens=6)
    assert (usage.prompt_tokens, usage.completion_tokens) == (5, 6)


def test_addition_sums_every_counter_and_merges_details() -> None:
    a = LlmUsage(input_tokens=10, output_tokens=1, cache_read_tokens=4, details={"x": 1})
    b = LlmUsage(
        input_tokens=5,
        output_tokens=2,
        cache_write_tokens=3,
        reasoning_tokens=1,
        details={"x": 2, "y": 7},
    )
    total = a + b
    assert total == LlmUsage(
        input_tokens=15,
        output_tokens=3,
        total_tokens=18,
        cache_read_tokens=4,
        cache_write_tokens=3,
        reasoning_tokens=1,
        details={"x": 3, "y": 7},
    )
    assert sum([a, b]) == total
    assert a.details == {"x": 1}  # operands untouched


def test_huge_counts_do_not_overflow() -> None:
    big = LlmUsage(input_tokens=2**62, output_tokens=2**62)
    total = sum([big] * 8, LlmUsage())
    assert total.input_tokens == 2**65
    assert total.total_tokens == 2**66


@pytest.mark.parametrize(
    "bad",
    [{"input_tokens": -1}, {"output_tokens": "many"}, {"details": {"a": "b"}}, {"extra": 1}],
)
def test_invalid_usage_is_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        LlmUsage.model_validate(bad)


def test_adding_other_types_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        LlmUsage() + 1


def test_flatten_counters_keeps_numeric_counts_only() -> None:
    raw = {
        "input_tokens": 5,
        "cache_creation": {"ephemeral_5m_input_tokens": 2, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard",
        "flag": True,
        "ratio": 0.5,
        "whole": 3.0,
        "neg": -1,
    }
    assert flatten_counters(raw) == {
        "input_tokens": 5,
        "cache_creation.ephemeral_5m_input_tokens": 2,
        "cache_creation.ephemeral_1h_input_tokens": 0,
        "whole": 3,
    }


counts = st.integers(min_value=0, max_value=2**80)


@given(st.lists(st.tuples(counts, counts, counts), max_size=8))
def test_sums_match_field_sums(triples: list[tuple[int, int, int]]) -> None:
    usages = [LlmUsage(input_tokens=i, output_tokens=o, cache_read_tokens=c) for i, o, c in triples]
    total = sum(usages, LlmUsage())
    assert total.input_tokens == sum(t[0] for t in triples)
    assert total.output_tokens == sum(t[1] for t in triples)
    assert total.cache_read_tokens == sum(t[2] for t in triples)
    assert total.total_tokens == total.input_tokens + total.output_tokens
