"""The CodeAct paper's M3ToolEval harness, as text: its prompt, how it trims and reads a
reply, and how a text or JSON action becomes a tool call.

The strings are the paper's, verbatim, in ``data/paper_protocol.json`` (MIT). A reply
is trimmed first — cut before its second ``Answer:``/``Action:`` marker, then after the
first ``Action:`` cut at ``End Action`` (kept) or at a following ``Thought:`` — and the
trimmed reply is what the conversation keeps and what is read.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

PROTOCOL_FILE = Path(__file__).resolve().parent / "data" / "paper_protocol.json"
_MARKER = re.compile(r"Answer:|Action:")


@cache
def protocol() -> dict[str, Any]:
    """The paper's strings and settings."""
    data: dict[str, Any] = json.loads(PROTOCOL_FILE.read_text(encoding="utf-8"))
    return data


def build_prompt(mode: str, instruction: str, tools: list[dict[str, str]]) -> str:
    """The single user message: the numbered tools, the mode's instructions, the task."""
    p = protocol()
    lines = [p["tool_list_header"]]
    for index, tool in enumerate(tools, 1):
        lines.append(p["tool_line"].format(index=index, **tool))
    return (
        "".join(lines)
        + "\n"
        + str(p["mode_instructions"][mode])
        + str(p["prompt_tail"]).format(instruction=instruction)
    )


def trim(reply: str) -> str:
    """Cut before the second marker; then cut the first action at End Action / Thought:."""
    markers = list(_MARKER.finditer(reply))
    if len(markers) >= 2:
        reply = reply[: markers[1].start()]
    start = reply.find("Action:")
    if start < 0:
        return reply
    body_at = start + len("Action:")
    end = reply.find("End Action", body_at)
    if end >= 0:
        return reply[: end + len("End Action")]
    thought = reply.find("Thought:", body_at)
    return reply[:thought] if thought >= 0 else reply


@dataclass(frozen=True)
class Parsed:
    """What a trimmed reply asks for."""

    kind: Literal["answer", "action", "invalid"]
    content: str
    reminder: str | None = None


def classify(reply: str) -> Parsed:
    """An answer, an action (its content up to End Action) or an invalid generation."""
    feedback = protocol()["feedback"]
    has_answer, has_action = "Answer:" in reply, "Action:" in reply
    if has_answer and has_action:
        return Parsed("invalid", feedback["both"])
    if has_answer:
        reminder = feedback["more_than_one_answer"] if reply.count("Answer:") > 1 else None
        return Parsed("answer", reply.split("Answer:")[1].strip(), reminder)
    if has_action:
        reminder = feedback["more_than_one_action"] if reply.count("Action:") > 1 else None
        action = reply.split("Action:")[1].lstrip()
        if "End Action" in action:
            action = action[: action.find("End Action")]
        return Parsed("action", action, reminder)
    return Parsed("invalid", feedback["neither"])


def _convert(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_text_action(action: str) -> tuple[str, list[Any]]:
    """``tool_name, arg1, arg2`` → the name and the converted arguments."""
    parts = [part.strip() for part in action.strip().split(",")]
    if not parts or not parts[0]:
        raise ValueError("the action names no tool")
    return parts[0], [_convert(part) for part in parts[1:] if part != ""]


def parse_json_action(action: str) -> tuple[str, list[Any]]:
    """``{"tool": ..., "args": [...]}`` → the name and the arguments."""
    data = json.loads(action.strip())
    if not isinstance(data, dict) or not isinstance(data.get("tool"), str):
        raise ValueError("expected an object with a string 'tool'")
    args = data.get("args", [])
    if not isinstance(args, list):
        raise ValueError("'args' must be a list")
    return data["tool"], args


def as_observation(text: str) -> Any:
    """The REPL's printed text, as a Python value when it parses as a literal."""
    stripped = text.strip()
    try:
        return ast.literal_eval(stripped)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return stripped


def clip(result: Any) -> str:
    """A tool result as the model sees it: ``str()``-ed, cut to the paper's length."""
    p = protocol()
    text = str(result)
    limit = p["settings"]["tool_result_max_chars"]
    if len(text) > limit:
        return text[:limit] + str(p["feedback"]["tool_result_truncated_suffix"])
    return text
