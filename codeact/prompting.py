"""Rendering the prompt templates (``codeact/prompts/*.md``) with a run's capabilities.

Templates use ``string.Template`` placeholders (``$tools``); any template can be
replaced per agent, by name, with ``Agent(prompts={"system": "..."})`` or a
``prompts_dir`` holding files of the same names.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from sandbox import SandboxPolicy
from sandbox.protocol import shows_images

TEMPLATE_NAMES = (
    "system",
    "sub_agents",
    "transfer",
    "transfer_helper",
    "observation",
    "error",
    "printed",
    "no_code",
    "invalid_output",
    "unknown_agent",
    "rejected",
    "transferred",
    "resumed",
)


@cache
def default_templates() -> dict[str, str]:
    """The templates shipped in the package (``codeact/prompts/``)."""
    shipped = resources.files("codeact") / "prompts"
    missing = [name for name in TEMPLATE_NAMES if not (shipped / f"{name}.md").is_file()]
    if missing:
        raise FileNotFoundError(
            f"prompt templates missing from the installed package ({shipped}): "
            + ", ".join(f"{name}.md" for name in missing)
        )
    return {name: (shipped / f"{name}.md").read_text(encoding="utf-8") for name in TEMPLATE_NAMES}


def load_templates(
    overrides: Mapping[str, str] | None = None, directory: str | Path | None = None
) -> dict[str, str]:
    """Defaults, then files from ``directory``, then ``overrides``; unknown names are errors."""
    templates = dict(default_templates())
    if directory is not None:
        for path in Path(directory).glob("*.md"):
            if path.stem not in templates:
                raise ValueError(
                    f"{path}: unknown template {path.stem!r}; known: {', '.join(TEMPLATE_NAMES)}"
                )
            templates[path.stem] = path.read_text()
    for name, text in (overrides or {}).items():
        if name not in templates:
            raise ValueError(f"unknown template {name!r}; known: {', '.join(TEMPLATE_NAMES)}")
        templates[name] = text
    return templates


def render(template: str, **values: Any) -> str:
    """Fill ``template``; placeholders without a value are left as written."""
    return Template(template).safe_substitute({k: str(v) for k, v in values.items()})


def describe_function(name: str, fn: Callable[..., Any], doc: str | None = None) -> str:
    """``def name(params) -> ret:`` plus its docstring, as the model sees a tool."""
    try:
        signature = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, ValueError):
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = None
    params = str(signature) if signature is not None else "(*args, **kwargs)"
    text = inspect.getdoc(fn) if doc is None else doc
    body = (
        '    """' + text.replace('"""', "'''").replace("\n", "\n    ") + '"""'
        if text
        else "    ..."
    )
    return f"def {name}{params}:\n{body}"


def describe_limits(policy: SandboxPolicy) -> str:
    """The limits a model should know about, in one line."""
    limits = policy.limits
    return (
        f"{limits.wall_s:g} s wall-clock, {limits.cpu_soft_s:g} s CPU, {limits.memory_mb} MB "
        f"memory, {limits.output_bytes:,} bytes of printed output, {limits.tool_calls} tool "
        f"calls"
    )


def describe_modules(policy: SandboxPolicy) -> str:
    """The importable modules, and how to show an image where the policy allows it."""
    text = ", ".join(policy.modules) or "none"
    if shows_images([*policy.modules, *policy.extra_modules]):
        text += (
            ". To look at a chart or an image, call `plt.show()` or `display(obj)` (a "
            "matplotlib figure, a PIL image, PNG or JPEG bytes): you see it after the step"
        )
    return text


def describe_files(policy: SandboxPolicy) -> str:
    """What the script may read and write on disk, in one line."""
    if not policy.mounts:
        return "none: there is no `open` and no file access."
    parts = []
    for mount in policy.mounts:
        # Plain Python (language layer off) sees the directories at their host paths.
        where = mount.sandbox_path if policy.layers.language else mount.host_path
        if mount.mode == "ro":
            parts.append(f"`{where}` (read-only)")
        else:
            parts.append(f"`{where}` (read-write, {mount.max_bytes:,} bytes per session)")
    return (
        f"{', '.join(parts)}, through `open(path)` (text or binary); nothing else on disk "
        "is reachable."
    )


def system_prompt(
    templates: Mapping[str, str],
    *,
    agent_name: str,
    instructions: str,
    tools: Mapping[str, Callable[..., Any]],
    sub_agents: Mapping[str, str],
    transfer_targets: Mapping[str, str],
    policy: SandboxPolicy,
) -> str:
    """The system prompt for one agent; sub-agents and targets map name → description."""
    tool_text = "\n\n".join(describe_function(n, f) for n, f in tools.items()) or "# (no tools)"
    agents_text = ""
    if sub_agents:
        agents = "\n\n".join(
            f'def {name}(task: str) -> object:\n    """{description}"""'
            for name, description in sub_agents.items()
        )
        agents_text = render(templates["sub_agents"], agents=agents)
    transfer_text = helper_text = ""
    if transfer_targets:
        targets = "\n".join(f"- `{name}`: {text}" for name, text in transfer_targets.items())
        transfer_text = render(templates["transfer"], targets=targets)
        helper_text = templates["transfer_helper"].rstrip("\n")
    return (
        render(
            templates["system"],
            agent_name=agent_name,
            instructions=instructions.strip() or "Solve the user's task.",
            tools=tool_text,
            sub_agents=agents_text,
            transfer=transfer_text,
            transfer_helper=helper_text,
            modules=describe_modules(policy),
            limits=describe_limits(policy),
            files=describe_files(policy),
        ).strip()
        + "\n"
    )
