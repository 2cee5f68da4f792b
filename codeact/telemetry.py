"""OpenTelemetry spans for agent runs, after the GenAI semantic conventions.

The span tree of a run::

    invoke_agent {agent}            gen_ai.agent.name, codeact.run_id
      step {n}                      codeact.step
        chat {model}                gen_ai.request.model, gen_ai.usage.*, finish reasons
        execute_script              codeact.script.error_code, cpu_s, peak memory, policy
          execute_tool {name}       gen_ai.tool.name, codeact.tool.ok
            invoke_agent {sub}      (a sub-agent called from the script)

Only ``opentelemetry-api`` is needed, and it does nothing until an application installs
an SDK (``opentelemetry-sdk``, the ``codeact[otel]`` extra) with a tracer provider.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

if TYPE_CHECKING:
    from codeact.messages import Ai
    from sandbox import Execution, SandboxPolicy

_TRACER = trace.get_tracer("codeact")


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
def chat_span(model: Any, max_tokens: int | None, temperature: float | None) -> Iterator[Span]:
    """``chat``: one model request; :func:`record_reply` adds usage and finish reasons."""
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
    with _TRACER.start_as_current_span(f"chat {name}", attributes=attributes) as span:
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


@contextlib.contextmanager
def script_span(policy: SandboxPolicy) -> Iterator[Span]:
    """``execute_script``: one script run in the sandbox."""
    if _off():
        yield trace.INVALID_SPAN
        return
    attributes = {"codeact.policy.digest": policy.digest(), "codeact.policy.name": policy.name}
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

    def finish(span: Span, ok: bool, exc: BaseException | None = None) -> None:
        span.set_attribute("codeact.tool.ok", ok)
        if exc is not None:
            span.set_attribute("error.type", type(exc).__name__)
            span.set_status(Status(StatusCode.ERROR, _message(exc)[:200]))

    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            with start() as span:
                try:
                    result = await fn(*args, **kwargs)
                except BaseException as exc:
                    finish(span, False, exc)
                    raise
                finish(span, True)
                return result

        return call_async

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with start() as span:
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                finish(span, False, exc)
                raise
            finish(span, True)
            return result

    return call
