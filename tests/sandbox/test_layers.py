"""Layer switches: what each run reports, and what each layer alone still stops."""

from __future__ import annotations

import pytest

from sandbox import FinalResult, Sandbox, SandboxPolicy
from sandbox.worker.confine import namespaces
from tests.confinement import degraded

DEFAULT = SandboxPolicy.preset("default")


def test_layers_are_in_the_digest() -> None:
    digests = {
        DEFAULT.digest(),
        DEFAULT.with_layers(language=False).digest(),
        DEFAULT.with_layers(os=False).digest(),
    }
    assert len(digests) == 3
    assert DEFAULT.layers.language and DEFAULT.layers.os


def test_every_run_records_its_confinement() -> None:
    with Sandbox(DEFAULT, spares=0) as sb, sb.session() as s:
        ex = s.run("final_result(1)")
    assert ex.confinement["language"] == "active"
    assert set(ex.confinement) == {
        "language",
        "process_group",
        "environment",
        "descriptors",
        "privileges",
        "rlimits",
        "syscall_filter",
        "filesystem",
        *namespaces.MECHANISMS,
        "cgroup",
    }
    for state in ex.confinement.values():
        assert state.startswith(("active", "degraded: "))


def test_language_off_runs_plain_python_but_the_os_layer_holds() -> None:
    with Sandbox(DEFAULT.with_layers(language=False), spares=0) as sb, sb.session() as s:
        if sb.confinement["syscall_filter"] != "active":
            degraded(f"seccomp unavailable: {sb.confinement['syscall_filter']}")
        plain = s.run("x = ().__class__.__bases__[0].__name__\nimport os\nfinal_result(x)")
        assert plain.output == FinalResult(value="object")
        assert plain.confinement["language"] == "off"
        for attack in (
            "import socket\nsocket.socket()",
            "import os\nos.fork()",
            "import subprocess\nsubprocess.run(['true'])",
            "import threading\nthreading.Thread(target=print).start()",
        ):
            ex = s.run(attack)
            assert ex.error_code == "runtime_error", attack
            message = ex.output.message  # type: ignore[union-attr]
            assert any(
                n in message
                for n in ("PermissionError", "Operation not permitted", "can't start new thread")
            ), message
        env = s.run("import os\nfinal_result(dict(os.environ))")
        assert env.output == FinalResult(value={})
        # Extension modules still load their system libraries (libz, libbz2, libcrypto).
        libraries = s.run(
            "import base64, bz2, hashlib, lzma, zlib\n"
            "final_result([base64.b64encode(zlib.compress(b'x')).decode(), "
            "len(bz2.compress(b'x')) > 0, len(lzma.compress(b'x')) > 0, "
            "hashlib.sha256(b'x').hexdigest()[:8]])"
        )
        assert libraries.output == FinalResult(value=["eJyrAAAAeQB5", True, True, "2d711642"])
        secrets = s.run("final_result(open('/etc/hostname').read())")
        assert secrets.error_code == "runtime_error"


def test_os_off_keeps_limits_and_reports_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEACT_LAYER_TEST", "visible-with-os-off")
    with Sandbox(DEFAULT.with_layers(os=False), spares=0) as sb, sb.session() as s:
        ex = s.run("import os")
        assert ex.error_code == "policy_violation"  # the language layer still refuses
        assert ex.confinement["syscall_filter"] == "off"
        assert ex.confinement["filesystem"] == "off"
        assert ex.confinement["rlimits"] == "active"
        slow = s.run("while True:\n    pass")
        assert slow.error_code in ("cpu_limit", "timeout")
