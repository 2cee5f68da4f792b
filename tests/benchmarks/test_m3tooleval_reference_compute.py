"""Reference solutions that call the tools directly reproduce every expected output.

This file covers message_decoder, cryptobotanists_plant_dna_sequencer and
trade_calculator; each reference follows its task's instruction step by step.
"""

from collections.abc import Callable
from typing import Any

import pytest

from codeact.bench.m3tooleval import is_correct, load_tasks, task_by_name
from codeact.bench.m3tooleval.domains.dna_sequencer import (
    count_nucleotides,
    find_max_nucleotide,
    is_valid_dna_sequence,
    reverse_transcribe_mrna_to_dna,
    transcribe_dna_to_mrna,
    translate_mrna_to_amino_acid,
)
from codeact.bench.m3tooleval.domains.message_decoder import (
    caesar_decode,
    convert_hex_to_ascii,
    maximum_value,
    minimum_value,
    reverse_string,
    string_length,
)
from codeact.bench.m3tooleval.domains.trade_calculator import (
    calculate_tariff,
    convert_currency,
    estimate_final_value,
    find_maximum,
    find_minimum,
)

Reference = Callable[[], Any]


def _unreverse(hex_string: str, shift: int) -> str:
    return caesar_decode(reverse_string(convert_hex_to_ascii(hex_string)), shift)


MESSAGE_DECODER: dict[str, Reference] = {
    "full_alien_message_decoding": lambda: _unreverse("7a686b7a686d666d686b", 5),
    "shortest_caesar_decoded_message": lambda: minimum_value(
        *[string_length(_unreverse(h, 4)) for h in ["636261", "686766", "6365646362", "6867666865"]]
    ),
    "longest_decoded_string": lambda: maximum_value(
        *[
            string_length(_unreverse(h, shift))
            for h, shift in zip(["4a656d", "4b6867", "4c696f"], [2, 3, 5], strict=True)
        ]
    ),
    "specific_decoded_character": lambda: _unreverse("576562546563686e6f6c6f6779", 7),
    "hex_caesar_combined_decoding": lambda: caesar_decode(convert_hex_to_ascii("4d4f5252"), 2),
    "multi_step_decoding_challenge": lambda: _unreverse("726f77746e6153794d", 3),
    "length_based_decoding_puzzle": lambda: next(
        message
        for message in (
            caesar_decode(convert_hex_to_ascii(h), 6) for h in ["646566", "6a6b6c6d", "68696a6b6c"]
        )
        if string_length(message) == 5
    ),
    "maximum_value_decoding": lambda: maximum_value(
        *[
            int(reverse_string(caesar_decode(convert_hex_to_ascii(h), 4)))
            for h in ["313233", "343536", "373839"]
        ]
    ),
}


def _flat(counts: dict[str, int]) -> list[str | int]:
    return [part for pair in counts.items() for part in pair]


def _most_common(sequence: str) -> tuple[str, int]:
    return find_max_nucleotide(*_flat(count_nucleotides(sequence)))


def _validate_and_translate(sequence: str) -> str:
    if not is_valid_dna_sequence(sequence):
        return "Invalid DNA sequence"
    return translate_mrna_to_amino_acid(transcribe_dna_to_mrna(sequence))


DNA: dict[str, Reference] = {
    "find_most_common_nucleotide_and_transcribe": lambda: transcribe_dna_to_mrna(
        _most_common("AGCTAGCCGATGCA")[0] * 3
    ),
    "validate_transcribe_translate": lambda: _validate_and_translate("AGCTTX"),
    "reverse_transcribe_count_max_nucleotide": lambda: _most_common(
        reverse_transcribe_mrna_to_dna("AUGCUUUUC")
    )[0],
    "transcribe_translate_amino_acid_length": lambda: len(
        translate_mrna_to_amino_acid(transcribe_dna_to_mrna("AGCTAGCGTA")).split("-")
    ),
    "reverse_transcribe_palindrome_check": lambda: count_nucleotides(
        reverse_transcribe_mrna_to_dna("AUGCGU")
    ),
    "validate_find_longest_valid_sequence": lambda: max(
        (s for s in ["AGCTAG", "XYZABC", "GTCAGT"] if is_valid_dna_sequence(s)), key=len
    ),
    "transcribe_translate_find_amino_acid": lambda: (
        "Methionine" in translate_mrna_to_amino_acid(transcribe_dna_to_mrna("AGCTAGCGTA"))
    ),
    "find_most_common_nucleotide_combined_sequence": lambda: _most_common(
        "".join(["AGCT", "CCGA", "TTAG"])
    ),
}


def _final(amount: float, rate: float, tariff_rate: float) -> float:
    local = convert_currency(amount, rate)
    return estimate_final_value(local, calculate_tariff(local, tariff_rate))


TRADE: dict[str, Reference] = {
    "estimate_final_value": lambda: estimate_final_value(150, calculate_tariff(150, 7.5)),
    "interstellar_trade_transaction": lambda: _final(100 * 50, 1.5, 8),
    "taxed_commodity_export": lambda: _final(200 * 120, 2.0, 5),
    "best_trade_route_selection": lambda: find_minimum(
        *[_final(500, rate, tariff) for rate, tariff in [(1.3, 7), (1.4, 9), (1.2, 4)]]
    ),
    "most_profitable_conversion_rate": lambda: find_maximum(
        *[_final(1000 * 300, rate, 10) for rate in (2.5, 2.3, 2.7)]
    ),
    "bulk_trade_quantity_discount": lambda: _final(2500 * 1500 * 0.95, 1.8, 12),
    "comparative_profit_analysis": lambda: find_maximum(
        _final(100 * 300, 1.6, 6), _final(80 * 500, 1.8, 5)
    ),
    "fluctuating_conversion_rates_impact": lambda: [
        _final(200 * units, rate, 7)
        for units, rate in zip([100, 150, 200], [1.7, 1.5, 1.6], strict=True)
    ],
    "optimal_trade_route_multiple_commodities": lambda: find_maximum(
        _final(150 * 200, 1.7, 8), _final(250 * 300, 1.5, 5), _final(100 * 400, 2.0, 10)
    ),
    "seasonal_price_fluctuation_impact": lambda: [
        _final(price * 200, 1.8, 7) for price in (200, 250, 180)
    ],
    "balancing_multiple_trade_offers": lambda: (
        _final(300 * 250, 1.6, 6) - _final(150 * 220, 1.5, 4)
    ),
    "dynamic_pricing_strategy": lambda: [
        _final(120 * 300 * 1.10, 1.8, 6),
        _final(100 * 300, 1.8, 6),
        _final(80 * 300 * 0.95, 1.8, 6),
    ],
    "quantity_tariff_tradeoff": lambda: find_maximum(
        _final(200 * 400, 1.7, 10), _final(150 * 400, 1.7, 5)
    ),
    "optimizing_bulk_purchase_discounts": lambda: find_maximum(
        _final(950 * 150, 1.6, 7),
        _final(1050 * 150 * 0.95, 1.6, 7),
        _final(950 * 180, 1.6, 7),
        _final(1050 * 180 * 0.95, 1.6, 7),
    ),
    "currency_fluctuation_hedging": lambda: find_minimum(
        *[_final(500 * 250, rate, 8) for rate in (1.5, 1.65, 1.8)]
    ),
    "variable_tariff_profit_maximization": lambda: find_maximum(
        _final(400 * 300, 1.7, 6), _final(350 * 300, 1.7, 4), _final(450 * 300, 1.7, 7)
    ),
    "long_term_vs_short_term_trade_decisions": lambda: [
        _final(600 * 200, 1.8, 5),
        _final(600 * 200 * 1.10, 1.8 - 0.2, 5 + 2),
    ],
}

REFERENCES: dict[str, Reference] = {
    **{f"message_decoder/{key}": fn for key, fn in MESSAGE_DECODER.items()},
    **{f"cryptobotanists_plant_dna_sequencer/{key}": fn for key, fn in DNA.items()},
    **{f"trade_calculator/{key}": fn for key, fn in TRADE.items()},
}
DOMAINS = ("message_decoder", "cryptobotanists_plant_dna_sequencer", "trade_calculator")


def test_every_task_of_these_domains_has_a_reference() -> None:
    names = {task.name for task in load_tasks() if task.domain in DOMAINS}
    assert names == set(REFERENCES)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reference_reproduces_expected_output(name: str) -> None:
    task = task_by_name(name)
    answer = REFERENCES[name]()
    assert is_correct(answer, task.expected_output, task.expected_type), (
        answer,
        task.expected_output,
    )


def test_references_can_fail() -> None:
    task = task_by_name("trade_calculator/estimate_final_value")
    naive = estimate_final_value(150, 7.5)
    assert not is_correct(naive, task.expected_output, task.expected_type)
