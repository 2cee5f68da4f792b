"""Any installed module by the user's word: ``allow_modules``, patterns, deny lists, and
the OS layer as the boundary for the modules no one curated."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import PolicyError, RequirementNotMet, Sandbox, SandboxPolicy
from sandbox.host import workers as process
from sandbox.policy_cli import render_policy
from tests.sandbox.test_require import BOOT_REFUSING_IPC

DEFAULT = SandboxPolicy.preset("default")


def test_allow_modules_returns_a_new_policy_and_sorts_names_by_curation() -> None:
    policy = DEFAULT.allow_modules("numpy", "tomllib", "scipy.*")
    assert "numpy" in policy.modules  # curated: its hand-made proxy
    assert policy.extra_modules == ("scipy.*", "tomllib")
    assert policy.uncurated() == ("scipy.*", "tomllib")
    assert DEFAULT.extra_modules == () and "numpy" not in DEFAULT.modules
    assert policy.digest() != DEFAULT.digest()
    assert DEFAULT.allow_modules("tomllib").digest() != DEFAULT.allow_modules("sqlite3").digest()


@pytest.mark.parametrize(
    ("names", "needle"),
    [
        (("no_such_module_xyz",), "not installed: 'no_such_module_xyz'"),
        (("numpy.no_such_part",), "not installed: 'numpy.no_such_part'"),
        (("no_such_pkg.*",), "not installed: 'no_such_pkg.*'"),
        (("two words",), "'two words' is not a module name"),
    ],
)
def test_a_name_that_cannot_be_allowed_is_a_policy_error(names: tuple[str], needle: str) -> None:
    with pytest.raises(PolicyError, match="allow_modules") as err:
        DEFAULT.allow_modules(*names)
    assert needle in str(err.value)


def test_policy_files_add_allow_modules_to_the_preset_and_modules_replaces(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        'extends = "default"\nallow_modules = ["tomllib", "pandas"]\n[deny]\n"tomllib" = ["load"]\n'
    )
    policy = SandboxPolicy.from_file(path)
    assert set(DEFAULT.modules) | {"pandas"} == set(policy.modules)
    assert policy.extra_modules == ("tomllib",)
    assert policy.deny == {"tomllib": ("load",)}
    assert policy == DEFAULT.allow_modules("tomllib", "pandas").model_copy(
        update={"deny": {"tomllib": ("load",)}}
    )
    path.write_text('extends = "data"\nmodules = ["json"]\nallow_modules = ["tomllib"]\n')
    replaced = SandboxPolicy.from_file(path)
    assert replaced.modules == ("json",) and replaced.extra_modules == ("tomllib",)
    path.write_text('extends = "default"\nallow_modules = ["not_installed_abc"]\n')
    with pytest.raises(PolicyError, match="not_installed_abc"):
        SandboxPolicy.from_file(path)


def test_uncurated_modules_need_the_os_layer_unless_trusted() -> None:
    with pytest.raises(PolicyError, match="contained by the OS layer only"):
        DEFAULT.with_layers(os=False).allow_modules("tomllib")
    trusted = DEFAULT.model_copy(update={"trust_uncurated": True})
    assert trusted.with_layers(os=False).allow_modules("tomllib").extra_modules == ("tomllib",)
    with pytest.raises(PolicyError, match="'\\*' needs the OS layer"):
        trusted.with_layers(os=False).allow_modules("*")
    assert "syscall_filter" in DEFAULT.allow_modules("tomllib").required_mechanisms()
    assert trusted.allow_modules("tomllib").required_mechanisms() == ()
    assert "minimal_root" in trusted.allow_modules("*").required_mechanisms()


def test_policy_show_says_what_is_curated_and_warns_about_everything() -> None:
    text = render_policy(DEFAULT.allow_modules("tomllib", "*"), {})
    assert "uncurated, contained by the OS layer only): * tomllib" in text
    assert "WARNING: '*' allows EVERY installed module" in text
    assert "uncurated" not in render_policy(DEFAULT, {})


def test_generated_proxies_expose_public_members_minus_the_deny_lists() -> None:
    policy = DEFAULT.allow_modules("tomllib", "pickle", "email").model_copy(
        update={"deny": {"tomllib": ("load",)}}
    )
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        ok = session.run(
            "import tomllib\n"
            "final_result([tomllib.loads('a = 1'), tomllib.TOMLDecodeError.__name__])"
        )
        assert ok.output.value == [{"a": 1}, "TOMLDecodeError"]  # type: ignore[union-attr]
        refused = {
            "import tomllib\ntomllib.load": "has no attribute 'load'",  # the policy's deny
            "import pickle\npickle.loads": "has no attribute 'loads'",  # shipped deny
            "import tomllib\ntomllib._parser": "'_parser'",  # private
            "import email\nemail.charset": "has no attribute 'charset'",  # not allowed
            "import email\nemail.message": "has no attribute 'message'",  # not allowed
            "import email.message": "No module named 'email.message'",
            "import tomllib\ntomllib.loads.__self__": '"__self__"',
        }
        for source, needle in refused.items():
            execution = session.run(source)
            assert execution.error_code is not None, source
            assert needle in execution.output.message, (source, execution.output)  # type: ignore[union-attr]


def test_a_pattern_allows_the_package_and_its_submodules() -> None:
    with Sandbox(DEFAULT.allow_modules("email.*"), spares=0) as sb, sb.session() as session:
        execution = session.run(
            "import email.message, email.utils\n"
            "m = email.message.EmailMessage()\n"
            "m['Subject'] = 'hi'\n"
            "final_result([m['Subject'], email.utils.formataddr(('A', 'a@b.c'))])"
        )
        assert execution.output.value == ["hi", "A <a@b.c>"], execution.output  # type: ignore[union-attr]
        refused = session.run("import emailx")
        assert refused.error_code == "policy_violation"


def test_uncurated_modules_refuse_to_start_where_the_os_layer_is_degraded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process, "_BOOT", BOOT_REFUSING_IPC)
    sandbox = Sandbox(DEFAULT.allow_modules("tomllib"), spares=0)
    with pytest.raises(RequirementNotMet, match="ipc_namespace"):
        sandbox.start()
    assert sandbox.processes() == set()
    trusted = DEFAULT.allow_modules("tomllib").model_copy(update={"trust_uncurated": True})
    with Sandbox(trusted, spares=0) as sb, sb.session() as session:
        execution = session.run("import tomllib\nfinal_result(tomllib.loads('a = 1')['a'])")
        assert execution.output.value == 1  # type: ignore[union-attr]


def test_a_diff_names_uncurated_modules_deny_lists_and_trust() -> None:
    from sandbox.probe.diff import diff_policies

    after = DEFAULT.allow_modules("tomllib").model_copy(
        update={"deny": {"tomllib": ("load",)}, "trust_uncurated": True}
    )
    changes = {c.path: c.meaning for c in diff_policies(DEFAULT, after)}
    assert "contained by the OS layer only" in changes["extra_modules"]
    assert "adds tomllib" in changes["extra_modules"]
    assert set(changes) == {"extra_modules", "deny", "trust_uncurated"}


def test_a_policy_deny_list_applies_to_curated_modules_too() -> None:
    policy = DEFAULT.model_copy(update={"deny": {"json": ("loads",), "collections.abc": ("Set",)}})
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        assert session.run("import json\nfinal_result(json.dumps([1]))").output.value == "[1]"  # type: ignore[union-attr]
        for source in (
            "import json\njson.loads",
            "from collections.abc import Set",
            "import collections\ncollections.abc.Set",
        ):
            execution = session.run(source)
            assert execution.error_code is not None, source
        ok = session.run("import collections\nfinal_result(collections.abc.Mapping.__name__)")
        assert ok.output.value == "Mapping", ok.output  # type: ignore[union-attr]


def test_everything_allows_any_installed_module_but_keeps_deny_lists_and_curation() -> None:
    with Sandbox(DEFAULT.allow_modules("*"), spares=0) as sb, sb.session() as session:
        ok = session.run(
            "import xml.etree.ElementTree as ET\nfinal_result(ET.fromstring('<a>1</a>').text)"
        )
        assert ok.output.value == "1", ok.output  # type: ignore[union-attr]
        assert session.run("import pickle\npickle.loads").error_code is not None  # shipped deny
        # A curated module is allowed by name only, with its own proxy.
        assert session.run("import os").error_code == "policy_violation"
