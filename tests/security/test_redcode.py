"""RedCode-Exec: the data ships with its attribution, the rewriting leaves nothing on the
host to hit, and under the default policy no case achieves its risky effect."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from sandbox import SandboxPolicy
from sandbox.probe import ProbeRefused, run_suite
from sandbox.probe.listeners import HttpRecorder
from sandbox.probe.redcode_cases import BAD_PRACTICE, load_redcode, redcode_dir
from sandbox.probe.redcode_stage import RedCodeStage
from sandbox.probe.safety import check_machine

FIXED_PORT = re.compile(r"(?<![\w.-])538[89](?!\w)")
HOST_TARGET = re.compile(r"""(?<=['"\s])/(etc|root|usr|var|proc|sys|app|bin|dev|lib|opt|boot)\b""")


def test_data_and_attribution_ship_together() -> None:
    directory = redcode_dir()
    assert len(list(directory.glob("index*_30_codes_full.json"))) == 27
    assert "Creative Commons Attribution 4.0" in (directory / "LICENSE").read_text()
    readme = (directory / "README.md").read_text()
    assert "CC BY 4.0" in readme and "AI-secure/RedCode" in readme
    cases = load_redcode()
    assert len(cases) == 810
    assert set(Counter(c.number for c in cases).values()) == {30}


@pytest.mark.timeout(120)
def test_rewriting_points_every_case_at_its_stage(tmp_path: Path) -> None:
    with HttpRecorder() as http:
        for case in load_redcode():
            stage = RedCodeStage(tmp_path, case, http)
            try:
                leftover = HOST_TARGET.search(stage.source)
                assert leftover is None, f"{case.index}: {leftover}"
                # The stage's own paths carry a random nonce that may contain any digits.
                rewritten = stage.source.replace(str(stage.root), "<stage>")
                assert not FIXED_PORT.search(rewritten), case.index
                assert "github.io" not in stage.source and "https://" not in stage.source
            finally:
                stage.close()


def _imported(code: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _is_harmless(result, policy: SandboxPolicy) -> bool:  # type: ignore[no-untyped-def]
    """A deserialization case that decodes a constant the script built itself, with
    modules of the policy only (json, base64, zlib, csv, urllib.parse: none of them runs
    code while decoding): the benchmark's own rule (the expected result was printed)
    scores it, though nothing left the worker."""
    case = _CASES[result.id]
    return (
        case.number == 24
        and str(result.detail).startswith("printed the benchmark's expected result")
        and _imported(case.code) <= set(policy.modules)
    )


_CASES = {case.index: case for case in load_redcode()}


@pytest.mark.timeout(300)
def test_nothing_escapes_the_default_policy() -> None:
    policy = SandboxPolicy.preset("default")
    results = run_suite(policy, "redcode")
    assert len(results) == 810
    escaped = [
        f"{r.id}: {r.detail}"
        for r in results
        if r.outcome == "escaped" and not _is_harmless(r, policy)
    ]
    assert not escaped
    practice = {r.category for r in results if r.bad_practice}
    assert {int(c.split()[0]) for c in practice} == set(BAD_PRACTICE)


@pytest.mark.timeout(300)
def test_without_the_language_layer_no_case_reaches_the_host(full_os_layer: None) -> None:
    results = run_suite(SandboxPolicy.preset("default").with_layers(language=False), "redcode")
    assert not [r.id for r in results if r.error_code == "policy_violation"]
    # Only the benchmark's own rule for output-judged categories may count a case:
    # a script that printed what it was asked to print, inside the confined worker.
    host_effects = [
        f"{r.id}: {r.detail}"
        for r in results
        if r.outcome == "escaped"
        and not r.detail.startswith("printed the benchmark's expected result")
    ]
    assert not host_effects


def test_both_layers_off_is_refused_before_anything_runs() -> None:
    policy = SandboxPolicy.preset("default").with_layers(language=False, os=False)
    with pytest.raises(ProbeRefused, match="both layers off"):
        run_suite(policy, "redcode")
    with pytest.raises(ProbeRefused, match="both layers off"):
        run_suite(policy, "escapes")


class _DegradedSandbox:
    """Looks like a started sandbox whose OS layer lacks Landlock."""

    confinement = {"filesystem": "degraded: Landlock is not available", "syscall_filter": "active"}

    def session(self) -> _DegradedSandbox:
        return self

    def __enter__(self) -> _DegradedSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_language_off_is_refused_where_landlock_is_degraded() -> None:
    policy = SandboxPolicy.preset("default").with_layers(language=False)
    sandbox = _DegradedSandbox()
    with pytest.raises(ProbeRefused, match="filesystem: degraded"):
        check_machine(policy, sandbox, allow_unconfined=False)  # type: ignore[arg-type]
    check_machine(policy, sandbox, allow_unconfined=True)  # type: ignore[arg-type]
    check_machine(SandboxPolicy.preset("default"), sandbox, allow_unconfined=False)  # type: ignore[arg-type]
