"""The OS layer as an unprivileged host: the os-layer corpus and the plain-Python attacks on
the host, re-run as ``nobody`` when the test process is root (see ``unprivileged.py``).

Most users are not root, and a sandbox confined differently without root (no cgroups, its
own user namespace for everything) must hold there too.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

from tests.security.unprivileged import ROOT, run_as_nobody, unavailable, visible_entries

REASON = unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"cannot run as nobody: {REASON}")

#: The corpus categories that attack the machine rather than the language layer.
CATEGORIES = ("os", "filesystem", "symlink", "channel", "procfs", "processes", "environment")

#: Test files that attack the host with the language layer off (root-only tests skip).
HOST_ATTACKS = (
    "tests/security/test_host_reach.py",
    "tests/security/test_namespaces.py",
    "tests/sandbox/test_privileges.py",
    "tests/security/test_shared_mount.py",
    "tests/security/test_host_limits.py",
    "tests/sandbox/test_private_writes.py",
)


_CHECK = (
    "import json, os, sandbox\n"
    "try:\n"
    "    root = sorted(os.listdir('/root'))\n"
    "except PermissionError:\n"
    "    root = None\n"
    "print(json.dumps({'ids': [os.getuid(), os.geteuid(), os.getgid(), os.getegid()],"
    " 'groups': os.getgroups(), 'root': root}))"
)


@pytest.mark.timeout(60)
def test_the_command_runs_as_nobody_and_sees_only_what_it_needs_under_root() -> None:
    result = run_as_nobody([sys.executable, "-c", _CHECK], timeout=50)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["ids"] == [65534] * 4 and seen["groups"] == []
    # /root is covered by a tmpfs holding what the interpreter needs there, or closed.
    assert seen["root"] == visible_entries(Path("/root")), seen


@pytest.mark.timeout(60)
def test_a_clone_in_root_beside_the_interpreter_is_seen_with_it() -> None:
    """A root user's usual layout: the checkout (with its venv) under /root too."""
    clone = Path(tempfile.mkdtemp(prefix="codeact-clone-", dir="/root"))
    try:
        clone.chmod(0o755)
        also = (clone,)
        result = run_as_nobody([sys.executable, "-c", _CHECK], timeout=50, also=also)
        assert result.returncode == 0, result.stderr
        expected = visible_entries(Path("/root"), also)
        assert expected is not None and clone.name in expected
        assert json.loads(result.stdout)["root"] == expected
    finally:
        clone.rmdir()


@pytest.mark.timeout(150)
def test_the_os_layer_corpus_does_not_escape_as_nobody() -> None:
    argv = [sys.executable, "-m", "codeact.cli", "policy", "probe", "--suite", "escapes"]
    argv += ["--layers", "os", "--json"]
    for category in CATEGORIES:
        argv += ["--category", category]
    result = run_as_nobody(argv, timeout=140)
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    escaped = [f"{r['id']}: {r['detail']}" for r in records if r["outcome"] == "escaped"]
    assert not escaped, escaped
    assert result.returncode == 0, result.stderr[-4000:]
    assert {r["category"] for r in records} == set(CATEGORIES)


@pytest.mark.timeout(400)
def test_the_plain_python_attacks_on_the_host_fail_as_nobody() -> None:
    files = [f for f in HOST_ATTACKS if (ROOT / f).exists()]
    assert files, "none of the host-attack test files exist"
    argv = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *files]
    result = run_as_nobody(argv, timeout=390)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and " failed" not in result.stdout, result.stdout[-2000:]
