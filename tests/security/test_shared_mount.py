"""Two sessions of one sandbox on one writable mount: an attacker and a victim.

Whatever the attacker writes, the victim's budget, its file listing and its results are
its own: each session writes to a private copy-on-write view of the mount, and the host
applies and charges each session's own changes. Tried with every layer on (the attacker
only writes files) and with the OS layer alone (the attacker is plain Python).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import Execution, Mount, Sandbox, SandboxPolicy

BUDGET = 1_000_000


def _policy(out: Path, language: bool) -> SandboxPolicy:
    mount = Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=BUDGET)
    policy = SandboxPolicy.preset("default").with_mounts(mount).with_limits(wall_s=5)
    return policy if language else policy.with_layers(language=False)


@pytest.fixture(params=[True, False], ids=["all layers", "os layer alone"])
def language(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture()
def sandbox(tmp_path: Path, language: bool) -> Iterator[Sandbox]:
    with Sandbox(_policy(tmp_path, language), spares=1) as sb:
        yield sb


def _at(language: bool, out: Path) -> str:
    """Where a script finds the mount: its sandbox path, or its host path as plain Python."""
    return "/out" if language else str(out)


@pytest.mark.timeout(120)
def test_the_victims_budget_is_not_charged_with_the_attackers_bytes(
    sandbox: Sandbox, tmp_path: Path, language: bool
) -> None:
    base = _at(language, tmp_path)
    with sandbox.session() as attacker, sandbox.session() as other, sandbox.session() as victim:
        for session in (attacker, other):
            spent = session.run(
                f"open({base!r} + '/fill-' + {secrets.token_hex(4)!r}, 'w')"
                f".write('x' * {BUDGET - 8192})"
            )
            assert spent.ok, spent.output
        for _ in range(3):
            wrote = victim.run(f"open({base!r} + '/victim.txt', 'a').write('21 bytes of my own. ')")
            assert wrote.ok, wrote.output
            assert [f.path for f in wrote.files] == ["/out/victim.txt"]
    assert (tmp_path / "victim.txt").read_text() == "21 bytes of my own. " * 3


@pytest.mark.timeout(120)
def test_a_session_lists_only_its_own_files(
    sandbox: Sandbox, tmp_path: Path, language: bool
) -> None:
    base = _at(language, tmp_path)
    secret = secrets.token_hex(8)
    with sandbox.session() as attacker, sandbox.session() as victim:
        assert attacker.run("x = 1").ok
        wrote = victim.run(f"open({base!r} + '/report-{secret}.txt', 'w').write('private')")
        assert [f.path for f in wrote.files] == [f"/out/report-{secret}.txt"]
        looked = attacker.run(f"open({base!r} + '/mine.txt', 'w').write('mine')")
        assert [f.path for f in looked.files] == ["/out/mine.txt"]
        assert secret not in looked.model_dump_json()


@pytest.mark.timeout(120)
def test_a_hostile_file_name_breaks_no_ones_result(
    sandbox: Sandbox, tmp_path: Path, language: bool
) -> None:
    base = _at(language, tmp_path)
    with sandbox.session() as attacker, sandbox.session() as victim:
        hostile = attacker.run(
            f"open({base!r} + '/r' + chr(0xDCFF) + '.txt', 'w').write('x')\n"
            f"open({base!r} + '/line\\nbreak\\\\.txt', 'w').write('y')"
        )
        other = victim.run(f"open({base!r} + '/fine.txt', 'w').write('ok')")
        for execution in (hostile, other):
            Execution.model_validate_json(execution.model_dump_json())
        assert sorted(f.path for f in hostile.files) == [
            "/out/line\\x0abreak\\x5c.txt",
            "/out/r\\xff.txt",
        ]
        assert [f.path for f in other.files] == ["/out/fine.txt"]
    assert (tmp_path / "r\udcff.txt").read_text() == "x"


@pytest.mark.timeout(120)
def test_a_running_session_changes_nothing_on_the_host_until_its_run_ends(
    tmp_path: Path, language: bool
) -> None:
    seen: list[list[str]] = []

    def look() -> str:
        """What the host directory holds now."""
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        return "looked"

    base = _at(language, tmp_path)
    with Sandbox(_policy(tmp_path, language), spares=0) as sandbox:
        with sandbox.session(tools={"look": look}) as session:
            ran = session.run(f"open({base!r} + '/during.txt', 'w').write('x')\nlook()")
            assert ran.ok, ran.output
    assert seen == [[]]
    assert (tmp_path / "during.txt").read_text() == "x"


@pytest.mark.timeout(120)
def test_the_later_of_two_sessions_writing_one_path_wins_whole(
    sandbox: Sandbox, tmp_path: Path, language: bool
) -> None:
    base = _at(language, tmp_path)
    first, second = "A" * 300_000, "B" * 200_000
    barrier = threading.Barrier(2)
    results: dict[str, Execution] = {}

    def write(name: str, content: str) -> None:
        with sandbox.session() as session:
            session.run("x = 1")
            barrier.wait(timeout=30)
            results[name] = session.run(
                f"with open({base!r} + '/shared.txt', 'w') as f:\n"
                f"    for _ in range(10):\n        f.write({content[:1000]!r} * "
                f"{len(content) // 10_000})"
            )

    threads = [
        threading.Thread(target=write, args=(name, content))
        for name, content in (("A", first), ("B", second))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(r.ok for r in results.values()), results
    assert (tmp_path / "shared.txt").read_text() in (first, second)
    for name, execution in results.items():
        assert [(f.path, f.size) for f in execution.files] == [
            ("/out/shared.txt", len(first if name == "A" else second))
        ]
    with sandbox.session() as later:
        # The next session sees the winner, whole.
        read = later.run(f"final_result(len(open({base!r} + '/shared.txt').read()))")
        assert read.output.value in (len(first), len(second))  # type: ignore[union-attr]


@pytest.mark.timeout(120)
def test_appending_to_a_file_another_session_grew_is_not_charged_its_bytes(
    sandbox: Sandbox, tmp_path: Path, language: bool
) -> None:
    base = _at(language, tmp_path)
    (tmp_path / "shared.log").write_text("start\n")
    with sandbox.session() as attacker, sandbox.session() as victim:
        grown = attacker.run(f"open({base!r} + '/shared.log', 'a').write('x' * {BUDGET - 600})")
        assert grown.ok, grown.output
        appended = victim.run(f"open({base!r} + '/shared.log', 'a').write('v' * 400)")
        assert appended.ok, appended.output
        assert victim.run("x = 1").ok


@pytest.mark.timeout(120)
def test_what_a_session_adds_to_a_file_is_charged_to_it(
    sandbox: Sandbox, tmp_path: Path, language: bool
) -> None:
    base = _at(language, tmp_path)
    (tmp_path / "big.log").write_text("h" * (BUDGET - 1000))
    with sandbox.session() as session:
        within = session.run(f"open({base!r} + '/big.log', 'a').write('a' * 500)")
        assert within.ok, within.output
        beyond = session.run(f"open({base!r} + '/big.log', 'a').write('b' * {BUDGET})")
        # Refused by the script's open (all layers) or by the host's budget (OS alone).
        assert beyond.error_code in ("runtime_error", "output_limit"), beyond.output
    # Whatever part of the second append was kept, the file grew by less than the budget.
    assert (tmp_path / "big.log").stat().st_size - (BUDGET - 1000) < BUDGET
