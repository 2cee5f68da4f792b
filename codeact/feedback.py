"""What the model is told after each script: built from the Execution.

Observations are compact JSON (a string value as itself), errors verbatim; both, and
the printed output, are cut in the middle to configurable sizes so the start and the
end survive.
"""

from __future__ import annotations

import json
import uuid
from string import Template

from pydantic import BaseModel, ConfigDict, Field

from codeact.message_parts import Content, ImageDataPart, TextPart
from sandbox import Execution, RestoreReport, ScriptImage

#: Feedback messages (what the loop tells the model) carry ids with this prefix, so that
#: history processors can tell them from the user's own messages.
FEEDBACK_ID_PREFIX = "feedback-"


def feedback_id() -> str:
    """A fresh id for a feedback message."""
    return FEEDBACK_ID_PREFIX + uuid.uuid4().hex


class FeedbackConfig(BaseModel):
    """Sizes of what goes back to the model, in characters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_observation_chars: int = Field(4000, ge=100)
    max_error_chars: int = Field(4000, ge=100)
    max_stdout_chars: int = Field(4000, ge=100)


def cut_middle(text: str, limit: int) -> str:
    """``text`` with its middle replaced by a marker when longer than ``limit``."""
    if len(text) <= limit:
        return text
    marker = "\n... [{} characters omitted] ...\n"
    keep = max(limit - len(marker) - 8, 20)
    head, tail = text[: keep // 2], text[len(text) - keep // 2 :]
    return head + marker.format(len(text) - len(head) - len(tail)) + tail


def compact_json(value: object) -> str:
    """A string as itself, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_feedback(execution: Execution, config: FeedbackConfig, templates: dict[str, str]) -> str:
    """The message the model receives after ``execution`` (not used for final results)."""
    output = execution.output
    printed = execution.stdout
    if execution.stdout_truncated:
        printed += "\n[printed output truncated]"
    if output.type == "observation":
        observation = compact_json(output.value)
        body = cut_middle(observation, config.max_observation_chars)
        # An observation of the printed text would repeat it: show it once.
        show_printed = bool(printed) and output.value != execution.stdout
        template = templates["observation"]
    elif output.type == "error":
        body = cut_middle(output.message, config.max_error_chars)
        show_printed = bool(printed)
        template = templates["error"]
    else:  # transfer and final results are handled by the loop
        body, show_printed, template = "", bool(printed), templates["observation"]
    printed_part = ""
    if show_printed:
        printed_part = Template(templates["printed"]).safe_substitute(
            printed=cut_middle(printed, config.max_stdout_chars)
        )
    return (
        Template(template)
        .safe_substitute(
            value=body or "(nothing)", printed=printed_part, error_code=execution.error_code or ""
        )
        .strip()
    )


def with_images(text: str, images: list[ScriptImage], *, visible: bool) -> Content:
    """Feedback ``text`` with the images the script showed: as image parts after it for a
    model that reads images, else a note of what it cannot see."""
    if not images:
        return text
    count = f"{len(images)} image{'s' if len(images) != 1 else ''}"
    if not visible:
        kinds = ", ".join(sorted({image.media_type for image in images}))
        return (
            f"{text}\n\nThe script displayed {count} ({kinds}), which you cannot see: "
            "this model reads text only. Print the numbers behind a chart instead."
        )
    parts: list[TextPart | ImageDataPart] = [
        TextPart(text=f"{text}\n\nThe script displayed {count}:")
    ]
    parts += [ImageDataPart(media_type=image.media_type, data=image.data) for image in images]
    return list(parts)


def resumed_note(restored: RestoreReport | None) -> tuple[str, bool]:
    """What the model is told when its run resumes from a checkpoint, and whether the
    variables of its earlier steps were restored (``restored``: what the session got
    back of the checkpoint's snapshot)."""
    if restored is None:
        return "The run was resumed from a checkpoint.", False
    note = (
        "The run was resumed from a checkpoint: the variables, functions and imports "
        "of earlier steps were restored."
    )
    if restored.lost:
        missing = "; ".join(f"{x.name} ({x.reason})" for x in restored.lost)
        note += f" Not restored: {missing}."
    return note, True
