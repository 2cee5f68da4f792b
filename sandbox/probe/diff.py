"""What differs between two policies, field by field (dotted paths), and what it changes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, JsonValue

from sandbox.policy import Limits, Mount, SandboxPolicy

_LAYER_MEANING = {
    ("language", False): "the language layer is switched off: scripts run as plain Python "
    "with the real builtins and can import any installed module; only the OS layer "
    "confines them (writable mounts become private copies applied after each run)",
    ("language", True): "the language layer is switched on: RestrictedPython checks, "
    "guards, safe builtins and module proxies stand between scripts and the worker",
    ("os", False): "the OS layer is switched off: no syscall filter, no Landlock, "
    "inherited descriptors and the host's environment; only rlimits and the wall clock "
    "remain",
    ("os", True): "the OS layer is switched on: empty environment, closed descriptors, "
    "syscall filter and filesystem confinement",
}


class PolicyChange(BaseModel):
    """One difference between two policies."""

    path: str
    before: JsonValue = None
    after: JsonValue = None
    meaning: str


def diff_policies(a: SandboxPolicy, b: SandboxPolicy) -> list[PolicyChange]:
    """Every field that differs from ``a`` to ``b``, with its meaning in words."""
    changes: list[PolicyChange] = []
    if a.name != b.name:
        changes.append(
            PolicyChange(
                path="name",
                before=a.name,
                after=b.name,
                meaning="a label for reports only; the rules and the digest ignore it",
            )
        )
    for field in ("modules", "extra_modules", "builtins"):
        changes += _set_change(field, getattr(a, field), getattr(b, field))
    changes += _uncurated_changes(a, b)
    for name, info in Limits.model_fields.items():
        before, after = getattr(a.limits, name), getattr(b.limits, name)
        if before != after:
            what = (info.description or name).rstrip(".")
            direction = "looser (allows more)" if after > before else "tighter (allows less)"
            changes.append(
                PolicyChange(
                    path=f"limits.{name}",
                    before=before,
                    after=after,
                    meaning=f"{what}: {direction}",
                )
            )
    for layer in ("language", "os"):
        before, after = getattr(a.layers, layer), getattr(b.layers, layer)
        if before != after:
            changes.append(
                PolicyChange(
                    path=f"layers.{layer}",
                    before=before,
                    after=after,
                    meaning=_LAYER_MEANING[(layer, after)],
                )
            )
    changes += _mount_changes(a.mounts, b.mounts)
    changes += _require_change(a.require, b.require)
    return changes


def _uncurated_changes(a: SandboxPolicy, b: SandboxPolicy) -> list[PolicyChange]:
    changes = []
    if a.deny != b.deny:
        changes.append(
            PolicyChange(
                path="deny",
                before={k: list(v) for k, v in a.deny.items()},
                after={k: list(v) for k, v in b.deny.items()},
                meaning="members never exposed by the module proxies, per module",
            )
        )
    if a.trust_uncurated != b.trust_uncurated:
        meaning = (
            "uncurated modules run even where the OS layer is off or degraded"
            if b.trust_uncurated
            else "uncurated modules need the whole OS layer active"
        )
        changes.append(
            PolicyChange(
                path="trust_uncurated",
                before=a.trust_uncurated,
                after=b.trust_uncurated,
                meaning=meaning,
            )
        )
    return changes


def _require_change(before: tuple[str, ...], after: tuple[str, ...]) -> list[PolicyChange]:
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    parts = []
    if added:
        parts.append(f"now requires {', '.join(added)} (refuses to start where unavailable)")
    if removed:
        parts.append(f"no longer requires {', '.join(removed)} (starts, reporting them degraded)")
    if not parts:
        return []
    meaning = "confinement mechanisms: " + "; ".join(parts)
    return [PolicyChange(path="require", before=list(before), after=list(after), meaning=meaning)]


def _set_change(field: str, before: tuple[str, ...], after: tuple[str, ...]) -> list[PolicyChange]:
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    if not added and not removed:
        return []
    noun = {
        "modules": "importable modules",
        "extra_modules": "uncurated modules (allow_modules; contained by the OS layer only)",
    }.get(field, "builtins scripts see")
    parts = []
    if added:
        parts.append(f"adds {', '.join(added)} (scripts can reach more)")
    if removed:
        parts.append(f"removes {', '.join(removed)}")
    return [
        PolicyChange(
            path=field,
            before=list(before),
            after=list(after),
            meaning=f"{noun}: {'; '.join(parts)}",
        )
    ]


def _mount_changes(before: tuple[Mount, ...], after: tuple[Mount, ...]) -> list[PolicyChange]:
    old = {m.sandbox_path: m for m in before}
    new = {m.sandbox_path: m for m in after}
    changes = []
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path), new.get(path)
        where = f"mounts[{path}]"
        if a is None and b is not None:
            access = "read and write" if b.mode == "rw" else "read"
            changes.append(
                _mount(
                    where, None, b, f"adds a mount: scripts can {access} {b.host_path} at {path}"
                )
            )
        elif b is None and a is not None:
            changes.append(_mount(where, a, None, f"removes the mount of {a.host_path}"))
        elif a is not None and b is not None and a != b:
            for key in ("host_path", "mode", "max_bytes"):
                x, y = getattr(a, key), getattr(b, key)
                if x != y:
                    changes.append(
                        PolicyChange(
                            path=f"{where}.{key}",
                            before=x,
                            after=y,
                            meaning=_mount_meaning(key, x, y),
                        )
                    )
    return changes


def _mount(where: str, a: Mount | None, b: Mount | None, meaning: str) -> PolicyChange:
    dump: Any = lambda m: m.model_dump() if m is not None else None  # noqa: E731
    return PolicyChange(path=where, before=dump(a), after=dump(b), meaning=meaning)


def _mount_meaning(key: str, before: Any, after: Any) -> str:
    if key == "mode":
        return "scripts may now write there" if after == "rw" else "scripts may only read there"
    if key == "max_bytes":
        word = "more" if after > before else "fewer"
        return f"a session may write {word} bytes under this mount"
    return "a different host directory is visible at the same sandbox path"
