"""Golden replies: scripted model turns that solve selected tasks through the agent loop.

Each file in `golden/` is named after its task (``/`` replaced by ``__``) and holds a
JSON list of replies, each a string or ``{"content": str, "thinking"?: str}``.
"""

import json
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


class GoldenError(ValueError):
    """A golden file is missing or malformed; the message names the file and item."""


def golden_path(task_name: str) -> Path:
    """The golden file of a task."""
    return GOLDEN_DIR / (task_name.replace("/", "__") + ".json")


def golden_task_names() -> list[str]:
    """The names of the tasks that have golden replies, sorted."""
    return sorted(path.stem.replace("__", "/") for path in GOLDEN_DIR.glob("*.json"))


def _check_reply(where: str, item: Any) -> str | dict[str, str]:
    if isinstance(item, str):
        return item
    if not isinstance(item, dict) or not isinstance(item.get("content"), str):
        raise GoldenError(f"{where}: expected a string or an object with a string 'content'")
    unknown = set(item) - {"content", "thinking"}
    if unknown:
        raise GoldenError(f"{where}: unknown field(s) {sorted(unknown)}")
    if "thinking" in item and not isinstance(item["thinking"], str):
        raise GoldenError(f"{where}: 'thinking' must be a string")
    return dict(item)


def golden_replies(task_name: str) -> list[str | dict[str, str]]:
    """The scripted replies of a task, validated; `GoldenError` when absent or malformed."""
    path = golden_path(task_name)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GoldenError(f"no golden replies for task {task_name!r} ({path})") from None
    except json.JSONDecodeError as exc:
        raise GoldenError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(raw, list) or not raw:
        raise GoldenError(f"{path}: must hold a non-empty JSON list of replies")
    return [_check_reply(f"{path}: reply {index}", item) for index, item in enumerate(raw)]


def reply_content(reply: str | dict[str, str]) -> str:
    """The text of a reply, whichever form it takes."""
    return reply if isinstance(reply, str) else reply["content"]
