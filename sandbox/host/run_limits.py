"""The size limits the host applies itself: to a script before it is sent, to a run's answer."""

from __future__ import annotations

from sandbox.execution import ErrorCode, Execution, ScriptImage
from sandbox.host.frames import RunDone
from sandbox.limits_text import explain
from sandbox.output import AnyScriptOutput, Error, ScriptOutput
from sandbox.policy import Limits
from sandbox.protocol import check_text


def refuse_source(source: str, limits: Limits) -> Execution | None:
    """An Execution refusing ``source`` before anything is sent, or None."""
    if source.isascii() and len(source) <= limits.source_bytes:
        return None  # the common case, decided without encoding
    problem = check_text(source)
    if problem is not None:
        # Strict UTF-8 cannot carry it; the worker and its variables are untouched.
        message = f"The script cannot run: {problem}. Remove or escape that character."
        return Execution(output=Error(message=message), error_code=ErrorCode.SYNTAX_ERROR)
    if len(source.encode("utf-8")) > limits.source_bytes:
        return Execution(
            output=Error(message=explain("source_limit", limits.model_dump())),
            error_code=ErrorCode.POLICY_VIOLATION,
        )
    return None


def capped_answer(
    message: RunDone, frame_size: int, limits: Limits
) -> tuple[AnyScriptOutput, str, bool, ErrorCode | None]:
    """The output, printed text, whether it was cut, and error code of a ``done`` frame
    of ``frame_size`` bytes, each held to the policy's limits."""
    output: AnyScriptOutput = ScriptOutput.decode(message.output)
    error_code, stdout, truncated = message.error_code, message.stdout, message.stdout_truncated
    # The worker caps both; checked again in case the frame did not come from it.
    # The frame's size bounds both: measure precisely only when it could be too big.
    if frame_size > limits.output_bytes:
        encoded = stdout.encode("utf-8", "surrogatepass")
        if len(encoded) > limits.output_bytes:
            stdout = encoded[: limits.output_bytes].decode("utf-8", "ignore")
            truncated, error_code = True, error_code or ErrorCode.OUTPUT_LIMIT
    if frame_size > limits.result_bytes and (
        len(output.model_dump_json()) > limits.result_bytes + 1024
    ):
        output = Error(message=explain("result_limit", limits.model_dump()))
        error_code = ErrorCode.OUTPUT_LIMIT
    return output, stdout, truncated, error_code


def capped_images(message: RunDone, limits: Limits) -> tuple[list[ScriptImage], str | None]:
    """The images of a ``done`` frame, or none and why, when together they pass the
    policy's ``result_bytes`` (the worker stops a script there; checked again here)."""
    size = sum(len(image.data) for image in message.images)
    if size <= limits.result_bytes:
        return list(message.images), None
    return [], f"the run's images take {size:,} bytes; at most {limits.result_bytes:,} are allowed"
