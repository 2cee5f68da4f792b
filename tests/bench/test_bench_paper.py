# ruff: noqa: E501  (the scripted replies read best one per line)
"""``--protocol paper``: the CodeAct paper's harness, with scripted replies in its format.

Replies are keyed by task, action mode and turn; the harness must build the paper's
prompt, trim and read the replies, run actions (code in one sandbox session, json/text
as direct tool calls), grade answers with the "incorrect" retry, and end single-tool
tasks early when an action's result already equals the expected output.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codeact.bench import BenchTask, SampleRecord, Suite
from codeact.bench.loading import load_suite
from codeact.bench.paper_format import build_prompt, classify, protocol, trim
from codeact.bench.runner import BenchConfig, run_bench
from codeact.cli import main
from codeact.messages import Message
from codeact.models import FunctionModel
from codeact.models.testing import CallInfo

FEEDBACK = protocol()["feedback"]
HEX = "message_decoder/hex_caesar_combined_decoding"
TRADE = "trade_calculator/estimate_final_value"
TRAVEL = "travel_itinerary_planning/new_york_trip_with_specific_preferences"
WEB = "web_browsing/price_of_legendary_wand"
DNA = "cryptobotanists_plant_dna_sequencer/reverse_transcribe_palindrome_check"

SCRIPTS: dict[tuple[str, str], list[str]] = {
    (HEX, "code"): [
        "Thought: undo the hex, then the shift.\nAction:\nprint(caesar_decode(convert_hex_to_ascii('4d4f5252'), 2))\nEnd Action",
        "Answer: KMPP",
    ],
    (HEX, "json"): [
        'Action: {"tool": "convert_hex_to_ascii", "args": ["4d4f5252"]} End Action',
        'Action: {"tool": "caesar_decode", "args": ["MORR", 2]} End Action',
        "Answer: KMPP",
    ],
    (HEX, "text"): [
        "I think it is KMPP.",  # neither marker: invalid generation
        "Action: convert_hex_to_ascii, 4d4f5252 End Action",
        "Action: caesar_decode, MORR, 2 End Action\nObservation: XXXX\nAnswer: XXXX",
        "Answer: KMPP",
    ],
    (TRADE, "code"): ["Action:\nprint(estimate_final_value(150, calculate_tariff(150, 7.5)))\nEnd Action", "Answer: 161.25"],
    (TRADE, "json"): [
        'Action: {"tool": "calculate_tariff", "args": [150, 7.5]} End Action',
        "Answer: $161.25",  # the paper's grader refuses the dollar sign
        "Answer: 161.25",
    ],
    (TRADE, "text"): ["Answer: 157.5"] * 10,  # wrong every time: the turn limit ends it
    (TRAVEL, "code"): [
        'Action:\nflights = find_flights("E", "B", "2023-11-10")\nhotels = book_hotel("B", "gym")\nprint(flights)\nEnd Action',
        "Thought: variables persist.\nAction:\nno_pool = [h for h in hotels if 'pool' not in h['preferences']]\n"
        "print(budget_calculator(min(*[f['price'] for f in flights]), no_pool[0]['price_per_night'], 3))\nEnd Action",
        "Answer: 615",
    ],
    (TRAVEL, "json"): [
        'Action: {"tool": "find_flights", "args": ["E", "B"]} End Action',  # a missing argument
        'Action: {"tool": "budget_calculator", "args": [165, 150, 3]} End Action',
        "Answer: 615",
    ],
    (TRAVEL, "text"): ["Action: no_such_tool, 1 End Action", "Answer: 615"],
    (WEB, "code"): ["Action:\nprint(click_url('/products/wand/legendary_wand'))\nEnd Action", "Answer: 68.71"],
    (WEB, "json"): ['Action: {"tool": "click_url", "args": ["/products/wand/legendary_wand"]} End Action', "Answer: 68.71"],
    (WEB, "text"): ["Action: click_url, /products/wand/legendary_wand End Action", "Answer: 68.71"],
    (DNA, "code"): ["Action:\nprint(count_nucleotides(reverse_transcribe_mrna_to_dna('AUGCGU')))\nEnd Action",
                    "Answer: {'T': 1, 'A': 2, 'C': 2, 'G': 1}"],
    (DNA, "json"): ['Action: {"tool": "reverse_transcribe_mrna_to_dna", "args": ["AUGCGU"]} End Action',
                    'Action: {"tool": "count_nucleotides", "args": ["TACGCA"]} End Action',
                    "Answer: {'T': 1, 'A': 2, 'C': 2, 'G': 1}"],
    (DNA, "text"): ["Action: reverse_transcribe_mrna_to_dna, AUGCGU End Action",
                    "Action: count_nucleotides, TACGCA End Action",
                    "Answer: {'T': 1, 'A': 2, 'C': 2, 'G': 1}"],
}  # fmt: skip


def _mode(prompt: str) -> str:
    return next(m for m, text in protocol()["mode_instructions"].items() if text in prompt)


def _factory(calls: list[CallInfo]):  # type: ignore[no-untyped-def]
    def reply(messages: list[Message], info: CallInfo) -> str:
        calls.append(info)
        prompt = messages[0].text()
        task = next(t for (t, _m) in SCRIPTS if f"Instruction: {_instruction(t)}" in prompt)
        turn = sum(1 for m in messages if m.role == "ai")
        return SCRIPTS[(task, _mode(prompt))][turn]

    return lambda task: FunctionModel(reply)


def _instruction(task_id: str) -> str:
    return load_suite("m3tooleval").task(task_id).input


@pytest.fixture(scope="module")
def paper_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[tuple[str, str], SampleRecord], list[CallInfo]]:
    calls: list[CallInfo] = []
    log = tmp_path_factory.mktemp("paper")
    tasks = ",".join(sorted({t for t, _ in SCRIPTS}))
    config = BenchConfig(
        suite=load_suite("m3tooleval"), model="scripted-paper", log_dir=log, protocol="paper",
        action_modes=["code", "json", "text"], tasks=tasks, model_factory=_factory(calls),
    )  # fmt: skip
    summary = asyncio.run(run_bench(config))
    assert [m.action_mode for m in summary.modes] == ["code", "json", "text"]
    from codeact.bench.logdir import LogDir

    records = {(r.task, r.action_mode): r for r in LogDir(log).read_samples()}
    return records, calls


def _human(record: SampleRecord) -> list[str]:
    assert record.transcript is not None
    return [m.text() for m in record.transcript.messages if m.role == "human"]


@pytest.mark.timeout(120)
def test_every_domain_in_every_mode_grades_as_the_paper(paper_run) -> None:  # type: ignore[no-untyped-def]
    records, calls = paper_run
    assert len(records) == 15
    expected_turns = {(HEX, "code"): 2, (HEX, "json"): 3, (HEX, "text"): 4, (TRADE, "json"): 3}
    for key, record in records.items():
        if key == (TRADE, "text"):
            continue
        assert record.status == "passed", (key, record.answer, _human(record)[1:])
        assert record.turns == expected_turns.get(key, record.turns)
    assert all(info.max_tokens == 512 and info.temperature == 0 for info in calls)
    from codeact.bench.summarize import summarize, summary_table

    table = summary_table(summarize("m3tooleval", "m", "paper", list(records.values())))
    side = table.split("\n\n")[1].splitlines()
    assert side[0].split() == ["domain", "code", "json", "text"]
    assert side[-1].split() == ["all", "100.0%", "100.0%", "80.0%"]


def test_the_prompt_is_one_user_message(paper_run) -> None:  # type: ignore[no-untyped-def]
    records, _ = paper_run
    record = records[(HEX, "json")]
    assert record.transcript is not None
    first = record.transcript.messages[0]
    assert first.role == "human"
    suite = load_suite("m3tooleval")
    from codeact.bench.paper import tool_infos

    task = suite.task(HEX)
    assert first.text() == build_prompt("json", task.input, tool_infos(suite, task))
    travel = tool_infos(suite, suite.task(TRAVEL))
    # The real signature is shown, not the data's two-argument one.
    assert next(t for t in travel if t["name"] == "find_flights")["signature"].startswith(
        "find_flights(from_location: str, to_location: str, date: str)"
    )


def test_wrong_answers_are_told_incorrect_until_the_turn_limit(paper_run) -> None:  # type: ignore[no-untyped-def]
    records, _ = paper_run
    retried = _human(records[(TRADE, "json")])
    assert retried[2] == FEEDBACK["wrong_answer"]
    exhausted = records[(TRADE, "text")]
    assert (exhausted.status, exhausted.failure_code, exhausted.turns) == (
        "failed",
        "max_steps_exceeded",
        10,
    )
    assert exhausted.answer == "157.5"
    assert _human(exhausted)[1:] == [FEEDBACK["wrong_answer"]] * 10


def test_invalid_generations_and_failed_tools_get_the_paper_messages(paper_run) -> None:  # type: ignore[no-untyped-def]
    records, _ = paper_run
    text = _human(records[(HEX, "text")])
    assert text[1] == FEEDBACK["neither"]
    assert text[3] == "KMPP"  # the hallucinated observation and answer were trimmed off
    assert records[(HEX, "text")].transcript.messages[5].text().endswith("End Action")  # type: ignore[union-attr]
    args = ["E", "B"]
    assert _human(records[(TRAVEL, "json")])[1] == FEEDBACK["tool_failed"].format(
        name="find_flights", args=args
    )
    assert _human(records[(TRAVEL, "text")])[1] == FEEDBACK["unknown_tool"].format(
        name="no_such_tool"
    )
    assert records[(TRAVEL, "code")].usage.scripts_run == 2  # one session: variables persisted


@pytest.mark.timeout(60)
def test_a_single_tool_task_ends_when_a_result_equals_the_expected_output(tmp_path: Path) -> None:
    def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    task = BenchTask(
        id="double", input="Double 4.", expected=8, metadata={"is_single_tool_task": True}
    )
    suite = Suite(name="single", tasks=[task], tools=lambda t: {"double": double})
    replies = ["Action: double, 4 End Action", "Answer: 8"]
    model = lambda t: FunctionModel(lambda messages, info: replies[info.call_index])  # noqa: E731
    config = BenchConfig(
        suite=suite, model="m", log_dir=tmp_path, protocol="paper", action_modes=["text", "code"],
        model_factory=model,
    )  # fmt: skip
    summary = asyncio.run(run_bench(config))
    assert summary.passed == 2
    from codeact.bench.logdir import LogDir

    by_mode = {r.action_mode: r for r in LogDir(tmp_path).read_samples()}
    assert (by_mode["text"].status, by_mode["text"].turns, by_mode["text"].answer) == (
        "passed",
        1,
        8,
    )
    # In code mode "double, 4" is a tuple expression that prints nothing: no early end,
    # and the answer follows.
    assert (by_mode["code"].status, by_mode["code"].turns) == ("passed", 2)


def test_trim_and_classify() -> None:
    assert (
        trim("Thought: x\nAction: a, 1 End Action\nObservation: 2\nAnswer: 2")
        == "Thought: x\nAction: a, 1 End Action"
    )
    assert trim("Action:\nprint(1)\nThought: then more") == "Action:\nprint(1)\n"
    assert classify("Answer:  42 ").content == "42"
    assert classify("Action: a, 1 End Action").content == "a, 1 "
    assert classify("hello").content == FEEDBACK["neither"]


def test_golden_replies_are_refused_under_the_paper_protocol(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "run", "m3tooleval", "--model", "golden", "--protocol", "paper"]
    assert main([*argv, "--action-mode", "code,json"]) == 2
    assert "--protocol codeact" in capsys.readouterr().err
