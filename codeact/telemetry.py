"""OpenTelemetry spans for agent runs, after the GenAI semantic conventions.

The span tree of a run::

    invoke_agent {agent}            gen_ai.agent.name, codeact.run_id
      step {n}                      codeact.step
        chat {model}                (kind CLIENT) gen_ai.request.model, gen_ai.usage.*,
                                    finish reasons
        start_sandbox               codeact.policy.digest (the run starts its sandbox)
        execute_script              codeact.script.error_code, cpu_s, peak memory, policy
          execute_tool {name}       gen_ai.tool.name, codeact.tool.ok
            invoke_agent {sub}      (a sub-agent called from the script)

Content — prompts, replies, scripts, tool arguments and results — is recorded only when
asked for: ``configure(capture_content=True)``, or the GenAI instrumentations' variable
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` set to ``true`` or
``span_only``. It then goes where the GenAI conventions put it: ``gen_ai.input.messages``,
``gen_ai.system_instructions`` and ``gen_ai.output.messages`` on ``chat`` spans (JSON,
each message a role and parts), ``gen_ai.tool.call.arguments`` and
``gen_ai.tool.call.result`` on ``execute_tool``, and the script's source and printed
text on ``execute_script`` (``codeact.script.source``, ``codeact.script.stdout``).

Only ``opentelemetry-api`` is needed, and it does nothing until an application installs
an SDK (``opentelemetry-sdk``, the ``codeact[otel]`` extra) with a tracer provider.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from codeact.telemetry_content import messages_json, output_json, system_json, value_json

if TYPE_CHECKING:
    from codeact.messages import Ai, Message
    from sandbox import Execution, SandboxPolicy

_TRACER = trace.get_tracer("codeact")

#: The GenAI instrumentations' switch for recording message content on spans.
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_capture: bool | None = None


def configure(*, capture_content: bool | None = None) -> None:
    """Record prompts, replies, scripts and tool values on spans (``True``), never
    (``False``), or as :data:`CAPTURE_ENV` says (``None``, the default)."""
    global _capture
    _capture = capture_content


def capturing_content() -> bool:
    """Whether content is recorded now (see :func:`configure`)."""
    if _capture is not None:
        return _capture
    return os.environ.get(CAPTURE_ENV, "").strip().lower() in (
        "true",
        "1",
        "span_only",
        "span_and_event",
    )


def _off() -> bool:
    """No tracer provider installed: every span would be a no-op, so none is made
    (the attributes alone cost more than the rest of the no-op path)."""
    return isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _message(exc: BaseException) -> str:
    """``str(exc)``, or a placeholder when its ``__str__`` raises: the tool's own
    failure must reach the script, not one from describing it."""
    try:
        return str(exc)
    except Exception:
        return "(its message could not be shown)"


def _provider_of(model_name: str, model: Any) -> str:
    provider = getattr(model, "provider", None)
    if isinstance(provider, str) and provider:
        return provider
    return model_name.partition(":")[0] if ":" in model_name else type(model).__name__


@contextlib.contextmanager
def agent_span(agent_name: str, run_id: str, model: Any) -> Iterator[Span]:
    """``invoke_agent``: one agent's conversation (the run's, or a sub-agent's)."""
    if _off():
        yield trace.INVALID_SPAN
        return
    name = str(getattr(model, "name", "") or "")
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent_name,
        "gen_ai.conversation.id": run_id,
        "gen_ai.request.model": name,
        "gen_ai.provider.name": _provider_of(name, model),
        "codeact.run_id": run_id,
    }
    with _TRACER.start_as_current_span(f"invoke_agent {agent_name}", attributes=attributes) as s:
        yield s


@contextlib.contextmanager
def step_span(step: int, agent_name: str) -> Iterator[Span]:
    """One step: a model reply and what the loop did with it."""
    if _off():
        yield trace.INVALID_SPAN
        return
    attributes: dict[str, Any] = {"codeact.step": step, "gen_ai.agent.name": agent_name}
    with _TRACER.start_as_current_span(f"step {step}", attributes=attributes) as span:
        yield span


@contextlib.contextmanager
def chat_span(
    model: Any,
    max_tokens: int | None,
    temperature: float | None,
    messages: Sequence[Message] = (),
) -> Iterator[Span]:
    """``chat``: one model request (``messages``, when content is captured);
    :func:`record_reply` adds usage and finish reasons."""
    if _off():
        yield trace.INVALID_SPAN
        return
    name = str(getattr(model, "name", "") or "")
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": name,
        "gen_ai.provider.name": _provider_of(name, model),
    }
    if max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = max_tokens
    if temperature is not None:
        attributes["gen_ai.request.temperature"] = temperature
    if messages and capturing_content():
        attributes["gen_ai.input.messages"] = messages_json(messages)
        system = system_json(messages)
        if system is not None:
            attributes["gen_ai.system_instructions"] = system
    # A model request leaves the process: the conventions make it a client span.
    with _TRACER.start_as_current_span(
        f"chat {name}", kind=SpanKind.CLIENT, attributes=attributes
    ) as span:
        yield span


def record_reply(span: Span, reply: Ai) -> None:
    """Usage, response model and finish reason of a model reply on its ``chat`` span."""
    if not span.is_recording():
        return
    usage = reply.usage()
    if usage is not None:
        span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
    model = getattr(reply, "model", None)
    if isinstance(model, str) and model:
        span.set_attribute("gen_ai.response.model", model)
    reason = getattr(reply, "finish_reason", None) or getattr(reply, "stop_reason", None)
    if isinstance(reason, str) and reason:
        span.set_attribute("gen_ai.response.finish_reasons", [reason])
    if capturing_content():
        span.set_attribute("gen_ai.output.messages", output_json(reply))


@contextlib.contextmanager
def sandbox_span(policy: SandboxPolicy) -> Iterator[Span]:
    """``start_sandbox``: a run starting the sandbox its scripts run in."""
    if _off():
        yield trace.INVALID_SPAN
        return
    attributes = {"codeact.policy.digest": policy.digest(), "codeact.policy.name": policy.name}
    with _TRACER.start_as_current_span("start_sandbox", attributes=attributes) as span:
        yield span


@contextlib.contextmanager
def script_span(policy: SandboxPolicy, source: str | None = None) -> Iterator[Span]:
    """``execute_script``: one script run in the sandbox (its ``source``, when content
    is captured)."""
    if _off():
        yield trace.INVALID_SPAN
        return
    attributes = {"codeact.policy.digest": policy.digest(), "codeact.policy.name": policy.name}
    if source is not None and capturing_content():
        attributes["codeact.script.source"] = source
    with _TRACER.start_as_current_span("execute_script", attributes=attributes) as span:
        yield span


def record_execution(span: Span, execution: Execution) -> None:
    """What the run did, on its ``execute_script`` span."""
    if not span.is_recording():
        return
    span.set_attribute("codeact.script.error_code", execution.error_code or "")
    span.set_attribute("codeact.script.output_type", execution.output.type)
    span.set_attribute("codeact.script.cpu_s", execution.cpu_s)
    span.set_attribute("codeact.script.peak_memory_bytes", execution.peak_memory_bytes)
    span.set_attribute("codeact.script.tool_calls", len(execution.tool_calls))
    for mechanism, state in execution.confinement.items():
        span.set_attribute(f"codeact.confinement.{mechanism}", state)
    if capturing_content():
        span.set_attribute("codeact.script.stdout", execution.stdout)
    if execution.error_code is not None:
        span.set_status(Status(StatusCode.ERROR, execution.error_code))


def record_failure(span: Span, code: str, message: str) -> None:
    """Mark a span failed with a codeact failure code."""
    if span.is_recording():
        span.set_attribute("error.type", code)
        span.set_status(Status(StatusCode.ERROR, message[:200]))


def traced_tool(name: str, fn: Callable[..., Any], parent: Callable[[], Span | None]) -> Any:
    """``fn`` inside an ``execute_tool`` span, child of the span ``parent()`` returns.

    The sandbox calls tools from its own threads and tasks, where the script's span is
    not the current one: the parent is looked up at call time instead.
    """

    def start() -> Any:
        if _off():
            return contextlib.nullcontext(trace.INVALID_SPAN)
        span = parent()
        ctx = trace.set_span_in_context(span) if span is not None else None
        return _TRACER.start_as_current_span(
            f"execute_tool {name}",
            context=ctx,
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
        )

    try:
        signature: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None

    def begin(span: Span, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if span.is_recording() and capturing_content():
            arguments = _named(signature, args, kwargs)
            span.set_attribute("gen_ai.tool.call.arguments", value_json(arguments))

    def finish(span: Span, ok: bool, exc: BaseException | None = None, result: Any = None) -> None:
        span.set_attribute("codeact.tool.ok", ok)
        if ok and span.is_recording() and capturing_content():
            span.set_attribute("gen_ai.tool.call.result", value_json(result))
        if exc is not None:
            span.set_attribute("error.type", type(exc).__name__)
            span.set_status(Status(StatusCode.ERROR, _message(exc)[:200]))

    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            with start() as span:
                begin(span, args, kwargs)
                try:
                    result = await fn(*args, **kwargs)
                except BaseException as exc:
                    finish(span, False, exc)
                    raise
                finish(span, True, result=result)
                return result

        return call_async

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with start() as span:
            begin(span, args, kwargs)
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                finish(span, False, exc)
                raise
            finish(span, True, result=result)
            return result

    return call


def _named(
    signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """A call's arguments by parameter name (by position where they do not bind)."""
    if signature is not None:
        with contextlib.suppress(TypeError):
            return dict(signature.bind_partial(*args, **kwargs).arguments)
    return {**{str(i): a for i, a in enumerate(args)}, **kwargs}
