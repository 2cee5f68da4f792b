"""The domain tools: each one's semantics, and the tool sets `tools_for` hands out."""

import inspect
import json

import pytest

from codeact.bench.m3tooleval import DOMAINS, load_tasks, tools_for
from codeact.bench.m3tooleval.domains import dna_sequencer as dna
from codeact.bench.m3tooleval.domains import message_decoder as md
from codeact.bench.m3tooleval.domains import trade_calculator as trade
from codeact.bench.m3tooleval.domains import travel


def test_tool_names_match_the_tasks() -> None:
    for task in load_tasks():
        assert list(tools_for(task.domain)) == task.tool_names, task.name


def test_every_tool_has_hints_and_a_one_line_docstring() -> None:
    for domain in DOMAINS:
        for name, fn in tools_for(domain).items():
            doc = inspect.getdoc(fn)
            assert doc and "\n" not in doc, (domain, name)
            signature = inspect.signature(fn)
            assert signature.return_annotation is not inspect.Signature.empty, (domain, name)
            for param in signature.parameters.values():
                assert param.annotation is not inspect.Parameter.empty, (domain, name, param)
            assert fn.__name__ == name, (domain, name)


def test_unknown_domain_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown M3ToolEval domain 'cooking'.*web_browsing"):
        tools_for("cooking")


def test_travel_docstrings_say_the_builtins_are_shadowed() -> None:
    tools = tools_for("travel_itinerary_planning")
    for name in ("max", "min", "sum"):
        assert "shadows the builtin" in (tools[name].__doc__ or "")


# message_decoder


def test_hex_reverse_length() -> None:
    assert md.convert_hex_to_ascii("48656c6c6f") == "Hello"
    assert md.convert_hex_to_ascii("c3a9") == "é"
    with pytest.raises(ValueError, match="not valid hex"):
        md.convert_hex_to_ascii("zz")
    assert md.reverse_string("abc") == "cba"
    assert md.string_length("hello") == 5


def test_caesar_decode_shifts_back_within_case() -> None:
    assert md.caesar_decode("Khoor, Zruog!", 3) == "Hello, World!"
    assert md.caesar_decode("abc", 1) == "zab"
    assert md.caesar_decode("ABC", 27) == "ZAB"
    assert md.caesar_decode("abc", -1) == "bcd"
    assert md.caesar_decode("123 é", 5) == "123 é"


def test_minimum_and_maximum_value_take_positional_args() -> None:
    assert md.minimum_value(3, 1, 2) == 1
    assert md.maximum_value(321, 654, 987) == 987
    assert md.maximum_value("b", "a") == "b"
    assert isinstance(md.maximum_value(1, 2), int)
    with pytest.raises(ValueError, match="at least one"):
        md.minimum_value()


# cryptobotanists_plant_dna_sequencer


def test_count_nucleotides_keeps_first_seen_order() -> None:
    counts = dna.count_nucleotides("TACGCA")
    assert counts == {"T": 1, "A": 2, "C": 2, "G": 1}
    assert list(counts) == ["T", "A", "C", "G"]
    assert dna.count_nucleotides("") == {}


def test_transcription_both_ways() -> None:
    assert dna.transcribe_dna_to_mrna("ACGT") == "UGCA"
    assert dna.transcribe_dna_to_mrna("AXT") == "UXA"
    assert dna.reverse_transcribe_mrna_to_dna("UCAG") == "AGTC"
    assert dna.reverse_transcribe_mrna_to_dna("AUGCGU") == "TACGCA"


def test_translation_codons_and_short_tail() -> None:
    assert dna.translate_mrna_to_amino_acid("AUGUUUUUC") == "Methionine-Phenylalanine-Phenylalanine"
    assert dna.translate_mrna_to_amino_acid("UCGAUCGCAU") == "X-X-X-X"
    assert dna.translate_mrna_to_amino_acid("AUGAU") == "Methionine-X"
    assert dna.translate_mrna_to_amino_acid("") == ""


def test_find_max_nucleotide_pairs_and_ties() -> None:
    assert dna.find_max_nucleotide("A", 1, "G", 5, "C", 2) == ("G", 5)
    assert dna.find_max_nucleotide("C", 3, "A", 3) == ("C", 3)
    with pytest.raises(ValueError, match="alternating"):
        dna.find_max_nucleotide("A", 1, "G")
    with pytest.raises(ValueError, match="alternating"):
        dna.find_max_nucleotide()
    with pytest.raises(ValueError, match="str nucleotide followed by its int count"):
        dna.find_max_nucleotide(1, "A")


def test_is_valid_dna_sequence() -> None:
    assert dna.is_valid_dna_sequence("AGCT") is True
    assert dna.is_valid_dna_sequence("AGCTTX") is False
    assert dna.is_valid_dna_sequence("agct") is False


# trade_calculator


def test_trade_formulas_keep_python_arithmetic() -> None:
    assert trade.convert_currency(5000, 1.5) == 7500.0
    assert trade.convert_currency(10, 2) == 20 and isinstance(trade.convert_currency(10, 2), int)
    assert trade.calculate_tariff(150, 7.5) == 11.25
    assert trade.calculate_tariff(200, 5) == 10.0
    assert trade.estimate_final_value(150, 11.25) == 161.25
    assert trade.find_minimum(3.5, 1.2, 2) == 1.2
    assert trade.find_maximum(3.5, 1.2, 2) == 3.5
    with pytest.raises(ValueError, match="at least one"):
        trade.find_maximum()
    assert tools_for("trade_calculator")["calculator"]("2 + (3 * 4)") == 14


# travel_itinerary_planning


def test_find_flights_filters_on_all_three() -> None:
    flights = travel.find_flights("E", "B", "2023-11-10")
    assert [f["price"] for f in flights] == [350, 165]
    assert travel.find_flights('"E"', '"B"', "2023-11-10") == flights
    assert travel.find_flights("E", "B", "2023-11-11") == []
    assert travel.find_flights("B", "E", "2023-11-10") == []
    assert set(flights[0]) == {"from_location", "to_location", "date", "price"}


def test_unknown_locations_name_the_supported_ones() -> None:
    with pytest.raises(ValueError, match=r"Origin \[Paris\].*'A', 'B'"):
        travel.find_flights("Paris", "B", "2023-11-10")
    with pytest.raises(ValueError, match=r"Destination \[Z\]"):
        travel.find_flights("E", "Z", "2023-11-10")
    with pytest.raises(ValueError, match=r"Location \[Z\].*'F'"):
        travel.book_hotel("Z")


def test_book_hotel_requires_every_preference() -> None:
    assert [h["price_per_night"] for h in travel.book_hotel("C")] == [100, 95, 103, 110]
    assert [h["price_per_night"] for h in travel.book_hotel("C", "wifi", "pool")] == [110]
    assert [h["price_per_night"] for h in travel.book_hotel('"D"', "gym")] == [140, 135]
    assert travel.book_hotel("F") == []
    assert travel.book_hotel("A", "sauna") == []


def test_results_are_copies_of_the_tables() -> None:
    travel.book_hotel("A")[0]["price_per_night"] = 0
    travel.find_flights("E", "A", "2023-12-25")[0]["price"] = 0
    assert travel.book_hotel("A")[0]["price_per_night"] == 120
    assert travel.find_flights("E", "A", "2023-12-25")[0]["price"] == 450


def test_budget_and_number_tools() -> None:
    tools = tools_for("travel_itinerary_planning")
    assert tools["budget_calculator"](450, 120, 5) == 1050
    assert isinstance(tools["budget_calculator"](450, 120, 5), int)
    assert tools["max"](450, 360, 500) == 500
    assert tools["min"](450, 360, 500) == 360
    assert tools["sum"](1, 2.5, 3) == 6.5
    assert tools["sum"]() == 0
    with pytest.raises(ValueError, match="at least one"):
        tools["min"]()


def test_tool_results_are_json_serializable() -> None:
    values = [
        travel.find_flights("E", "B", "2023-11-10"),
        travel.book_hotel("B"),
        dna.count_nucleotides("AGCT"),
        list(dna.find_max_nucleotide("A", 3)),
    ]
    assert json.loads(json.dumps(values)) == values
