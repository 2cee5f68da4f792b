"""SandboxPolicy: presets, files, validation messages, digest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox import PolicyError, SandboxPolicy

COMMON_MODULES = (
    "math cmath json re datetime collections itertools functools operator statistics random "
    "string decimal fractions heapq bisect textwrap unicodedata copy time typing dataclasses "
    "enum"
).split()


def test_default_preset_allows_what_models_import() -> None:
    policy = SandboxPolicy.preset("default")
    assert set(COMMON_MODULES) <= set(policy.modules)


def test_strict_preset_is_tighter() -> None:
    strict, default = SandboxPolicy.preset("strict"), SandboxPolicy.preset("default")
    assert set(strict.modules) == {"math", "json", "re"}
    assert strict.limits.wall_s < default.limits.wall_s
    assert strict.limits.memory_mb < default.limits.memory_mb


def test_unknown_preset_lists_presets() -> None:
    with pytest.raises(PolicyError, match="strict, default"):
        SandboxPolicy.preset("lax")


def test_policy_is_frozen() -> None:
    policy = SandboxPolicy.preset("default")
    with pytest.raises(ValueError):
        policy.limits.wall_s = 100  # type: ignore[misc]


def test_digest_is_stable_and_sensitive() -> None:
    a = SandboxPolicy.preset("default")
    b = SandboxPolicy.preset("default")
    assert a.digest() == b.digest()
    assert len(a.digest()) == 64
    assert a.with_limits(wall_s=11).digest() != a.digest()
    assert a.model_copy(update={"name": "renamed"}).digest() == a.digest()


def test_toml_file_extends_a_preset(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('extends = "strict"\nname = "mine"\n[limits]\nwall_s = 3.5\n')
    policy = SandboxPolicy.from_file(path)
    assert policy.name == "mine"
    assert policy.limits.wall_s == 3.5
    assert policy.limits.memory_mb == SandboxPolicy.preset("strict").limits.memory_mb
    assert policy.modules == SandboxPolicy.preset("strict").modules


def test_json_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"modules": ["math"], "limits": {"tool_calls": 3}}))
    policy = SandboxPolicy.from_file(path)
    assert policy.modules == ("math",)
    assert policy.limits.tool_calls == 3


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('modules = ["subprocess"]', "modules: unknown module(s) 'subprocess'"),
        ('modules = ["math"]\n[limits]\nwall_s = -1', "limits.wall_s"),
        ('modules = ["math"]\n[limits]\nwal_s = 1', "limits.wal_s"),
        ('modules = ["math"]\nbuiltins = ["open"]', "builtins: unknown builtin(s) 'open'"),
        ('modules = ["math"]\n[limits]\ncpu_soft_s = 9\ncpu_hard_s = 2', "cpu_soft_s"),
        ("modules = [", "not valid TOML"),
        ('extends = "nope"', "extends: unknown preset"),
    ],
)
def test_errors_name_the_bad_field(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(PolicyError) as info:
        SandboxPolicy.from_file(path)
    assert needle in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file_and_wrong_suffix(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read"):
        SandboxPolicy.from_file(tmp_path / "absent.toml")
    (tmp_path / "p.yaml").write_text("x: 1")
    with pytest.raises(PolicyError, match=r"\.toml or \.json"):
        SandboxPolicy.from_file(tmp_path / "p.yaml")
