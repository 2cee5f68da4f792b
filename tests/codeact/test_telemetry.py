"""OpenTelemetry spans of an agent run, read back with the SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="needs opentelemetry-sdk (codeact[otel])")

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from codeact import Agent, LlmUsage
from codeact.messages import Ai
from codeact.models import ScriptedModel

FENCE = "`" * 3
_EXPORTER = InMemorySpanExporter()


def py(source: str) -> str:
    return f"{FENCE}python\n{source}\n{FENCE}"


@pytest.fixture()
def spans() -> Iterator[InMemorySpanExporter]:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


def _tree(finished: tuple[ReadableSpan, ...]) -> dict[int | None, list[ReadableSpan]]:
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in sorted(finished, key=lambda s: s.start_time or 0):
        parent = span.parent.span_id if span.parent is not None else None
        children.setdefault(parent, []).append(span)
    return children


def _names(children: dict[int | None, list[ReadableSpan]], span: ReadableSpan) -> list[str]:
    assert span.context is not None
    return [s.name for s in children.get(span.context.span_id, [])]


@pytest.mark.timeout(120)
def test_the_span_tree_of_a_run(spans: InMemorySpanExporter) -> None:
    def lookup(city: str) -> dict[str, Any]:
        """Facts about a city."""
        return {"city": city, "population": 42}

    researcher = Agent(
        "researcher",
        ScriptedModel([py("final_result(lookup('Oslo')['population'])")]),
        tools=[lookup],
        description="Looks things up.",
    )
    closer = Agent("closer", ScriptedModel([py("final_result('done')")]))
    main = Agent(
        "main",
        ScriptedModel([
            Ai(content=py("1 / 0"), usage=LlmUsage(input_tokens=120, output_tokens=9)),
            py("n = researcher('How many live in Oslo?')\nprint(n)"),  # a sub-agent
            py("transfer_to_agent('closer')"),               # a transfer
        ]),
        sub_agents=[researcher],
        transfer_targets=[closer],
    )
    out = main.run_sync("Find out and close.")
    assert out.value == "done"

    children = _tree(spans.get_finished_spans())
    (root,) = children[None]
    assert root.name == "invoke_agent main"
    assert root.attributes is not None
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["codeact.run_id"]
    steps = children[root.context.span_id]  # type: ignore[union-attr]
    assert [s.name for s in steps] == ["step 1", "step 2", "step 3", "step 4"]
    assert _names(children, steps[0]) == ["chat scripted", "start_sandbox", "execute_script"]
    failing = children[steps[0].context.span_id][2]  # type: ignore[union-attr]
    assert failing.attributes["codeact.script.error_code"] == "runtime_error"  # type: ignore[index]
    assert failing.status.status_code == trace.StatusCode.ERROR
    chat = children[steps[0].context.span_id][0]  # type: ignore[union-attr]
    assert chat.kind == trace.SpanKind.CLIENT
    assert chat.attributes["gen_ai.operation.name"] == "chat"  # type: ignore[index]
    assert "gen_ai.input.messages" not in chat.attributes  # type: ignore[operator]
    assert chat.attributes["gen_ai.usage.input_tokens"] == 120  # type: ignore[index]
    assert chat.attributes["gen_ai.usage.output_tokens"] == 9  # type: ignore[index]
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("stop",)  # type: ignore[index]

    script = children[steps[1].context.span_id][1]  # type: ignore[union-attr]
    (tool_call,) = children[script.context.span_id]  # type: ignore[union-attr]
    assert tool_call.name == "execute_tool researcher"
    assert tool_call.attributes["codeact.tool.ok"] is True  # type: ignore[index]
    (sub,) = children[tool_call.context.span_id]  # type: ignore[union-attr]
    assert sub.name == "invoke_agent researcher"
    (sub_step,) = children[sub.context.span_id]  # type: ignore[union-attr]
    sub_script = children[sub_step.context.span_id][1]  # type: ignore[union-attr]
    assert _names(children, sub_script) == ["execute_tool lookup"]
    # After the transfer the conversation goes on under the same run.
    assert _names(children, steps[3]) == ["chat scripted", "execute_script"]
