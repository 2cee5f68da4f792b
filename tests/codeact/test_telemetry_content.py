"""Opt-in content on spans: prompts, replies, scripts and tool values, in the GenAI
conventions' shapes; and the sandbox's start as a span of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="needs opentelemetry-sdk (codeact[otel])")

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from codeact import Agent, telemetry
from codeact.models import ScriptedModel
from tests.codeact.test_telemetry import py
from tests.codeact.test_telemetry import spans as spans  # the fixture, shared

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(telemetry.CAPTURE_ENV, raising=False)
    telemetry.configure(capture_content=True)
    yield
    telemetry.configure(capture_content=None)


def _run(exporter: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    def price(item: str) -> float:
        """The price of an item."""
        return {"wand": 10.0}[item]

    agent = Agent(
        "clerk",
        ScriptedModel([py("p = price('wand')\nprint('price', p)\nfinal_result(p * 2)")]),
        instructions="Answer with numbers.",
        tools=[price],
    )
    assert agent.run_sync("Two wands?").value == 20.0
    found: dict[str, list[ReadableSpan]] = {}
    for span in exporter.get_finished_spans():
        found.setdefault(span.name.split(" ")[0], []).append(span)
    return found


def test_content_is_recorded_when_asked(spans: InMemorySpanExporter, capture: None) -> None:
    found = _run(spans)
    (chat,) = found["chat"]
    attributes: Any = chat.attributes
    messages = json.loads(attributes["gen_ai.input.messages"])
    assert [m["role"] for m in messages] == ["user"]
    assert messages[0]["parts"] == [{"type": "text", "content": "Two wands?"}]
    system = json.loads(attributes["gen_ai.system_instructions"])
    assert system[0]["type"] == "text" and "Answer with numbers." in system[0]["content"]
    (reply,) = json.loads(attributes["gen_ai.output.messages"])
    assert reply["role"] == "assistant" and "price('wand')" in reply["parts"][0]["content"]
    (script,) = found["execute_script"]
    assert script.attributes["codeact.script.source"].startswith("p = price")  # type: ignore[index]
    assert script.attributes["codeact.script.stdout"] == "price 10.0\n"  # type: ignore[index]
    (tool,) = found["execute_tool"]
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"item": "wand"}  # type: ignore[index]
    assert json.loads(tool.attributes["gen_ai.tool.call.result"]) == 10.0  # type: ignore[index]


def test_no_content_by_default(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(telemetry.CAPTURE_ENV, raising=False)
    found = _run(spans)
    recorded = {key for spans_ in found.values() for s in spans_ for key in (s.attributes or {})}
    content = {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "codeact.script.source",
        "codeact.script.stdout",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
    assert not recorded & content


def test_the_environment_variable_turns_it_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(telemetry.CAPTURE_ENV, "SPAN_ONLY")
    assert telemetry.capturing_content()
    monkeypatch.setenv(telemetry.CAPTURE_ENV, "no_content")
    assert not telemetry.capturing_content()
    telemetry.configure(capture_content=True)
    try:
        assert telemetry.capturing_content()  # the explicit choice wins
    finally:
        telemetry.configure(capture_content=None)


def test_the_sandbox_start_has_a_span(spans: InMemorySpanExporter) -> None:
    found = _run(spans)
    (start,) = found["start_sandbox"]
    assert start.attributes["codeact.policy.name"] == "default"  # type: ignore[index]
    assert start.end_time is not None and start.start_time is not None
    assert start.end_time > start.start_time
