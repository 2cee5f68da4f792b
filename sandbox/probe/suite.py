"""``run_suite``: pick a suite (escapes, redcode or a directory) and run it under a policy."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

from sandbox.policy import SandboxPolicy
from sandbox.probe.corpus import load_corpus
from sandbox.probe.escapes import run_escapes
from sandbox.probe.redcode import run_redcode
from sandbox.probe.redcode_cases import load_redcode
from sandbox.probe.results import CaseResult
from sandbox.probe.safety import check_policy

SUITES = ("escapes", "redcode")


def _kind(suite: str | Path) -> tuple[str, Path | None]:
    if str(suite) in SUITES:
        return str(suite), None
    path = Path(suite)
    if not path.is_dir():
        raise ValueError(f"unknown suite {str(suite)!r}: use escapes, redcode or a directory")
    if any(path.glob("index*_30_codes_full.json")):
        return "redcode", path
    if any(path.glob("*.py")):
        return "escapes", path
    raise ValueError(f"{path}: neither corpus snippets (*.py) nor RedCode files (*.json)")


def _wanted(category: str, categories: Collection[str] | None) -> bool:
    if not categories:
        return True
    number, _, name = category.partition(" ")
    return bool({category, number, name, number.lstrip("0")} & set(categories))


def run_suite(
    policy: SandboxPolicy,
    suite: str | Path = "escapes",
    *,
    categories: Collection[str] | None = None,
    workers: int | None = None,
    allow_unconfined: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run every case of ``suite`` (optionally only some ``categories``) under ``policy``.

    Raises :class:`~sandbox.probe.ProbeRefused` for a policy with both layers off, or
    with the language layer off where the OS layer is degraded (unless
    ``allow_unconfined``); ``ValueError`` for an unknown suite. ``on_start(n)`` is told
    the number of cases, ``on_result(result)`` each result as it comes (from worker
    threads), for a progress display.
    """
    check_policy(policy)
    kind, directory = _kind(suite)
    if kind == "redcode":
        cases = [c for c in load_redcode(directory) if _wanted(c.category, categories)]
        if on_start:
            on_start(len(cases))
        results = run_redcode(
            policy, cases, workers=workers or 6, allow_unconfined=allow_unconfined,
            on_result=on_result,
        )  # fmt: skip
    else:
        attacks = [c for c in load_corpus(directory) if _wanted(c.category, categories)]
        if on_start:
            on_start(len(attacks))
        results = run_escapes(
            policy, attacks, workers=workers or 3, allow_unconfined=allow_unconfined,
            on_result=on_result,
        )  # fmt: skip
    # Cases run under a copy with the arena's temporary mounts, whose digest changes on
    # every run: a record names the policy that was probed, so it can be matched to it.
    digest, layers = policy.digest(), layers_label(policy)
    return [r.model_copy(update={"policy_digest": digest, "layers": layers}) for r in results]


def layers_label(policy: SandboxPolicy) -> str:
    """The layers ``policy`` has on, as ``--layers`` writes them (``none`` for neither)."""
    on = [name for name in ("language", "os") if getattr(policy.layers, name)]
    return ",".join(on) or "none"
