"""Every limit: the run is stopped, an Execution still comes back, the next run works."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from sandbox import Error, FinalResult, Sandbox, SandboxPolicy

TIGHT = SandboxPolicy.preset("default").with_limits(
    wall_s=1.5,
    cpu_soft_s=0.5,
    cpu_hard_s=1.0,
    memory_mb=256,
    output_bytes=1000,
    result_bytes=5000,
    tool_calls=3,
    source_bytes=2000,
    recursion_depth=60,
)


@pytest.fixture(scope="module")
def tight() -> Iterator[Sandbox]:
    with Sandbox(TIGHT, spares=1) as sb:
        yield sb


@pytest.fixture(scope="module")
def small_memory() -> Iterator[Sandbox]:
    # Touching pages is slow on a loaded machine: give CPU room so memory runs out first.
    policy = TIGHT.with_limits(cpu_soft_s=4, cpu_hard_s=5, wall_s=8)
    with Sandbox(policy, spares=1) as sb:
        yield sb


def check_stopped(sb: Sandbox, source: str, codes: dict[str, str], *, max_s: float) -> None:
    """Run ``source``; it must stop with one of ``codes`` (code -> words in the message)."""
    with sb.session() as session:
        started = time.monotonic()
        execution = session.run(source)
        elapsed = time.monotonic() - started
        assert execution.error_code in codes, execution.output
        assert isinstance(execution.output, Error)
        assert codes[execution.error_code] in execution.output.message
        assert elapsed < max_s
        # The session keeps working afterwards (in a fresh worker if the old one died).
        after = session.run("final_result(6 * 7)")
        assert after.output == FinalResult(value=42)
    with sb.session() as fresh:
        assert fresh.run("final_result(1)").output == FinalResult(value=1)


# On a loaded machine a C-level loop may reach the wall limit before the CPU limit.
CPU_OR_WALL = {"cpu_limit": "CPU time", "timeout": "wall-clock"}


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("source", "codes"),
    [
        ("while True:\n    pass", CPU_OR_WALL),
        (
            "x = 0\nwhile True:\n    try:\n        while True:\n            x += 1\n"
            "    except BaseException:\n        pass",
            CPU_OR_WALL,
        ),
        ("sum(range(10**12))", CPU_OR_WALL),
        ("import re\nre.match(r'(a+)+$', 'a' * 40 + 'b')", CPU_OR_WALL),
        ("10**10**8", CPU_OR_WALL),
        ("import time\ntime.sleep(30)", {"timeout": "wall-clock"}),
        (
            "class Quiet:\n    def __enter__(self):\n        return self\n"
            "    def __exit__(self, *exc):\n        return True\n"
            "with Quiet():\n    while True:\n        pass\nfinal_result('went on')",
            CPU_OR_WALL,
        ),
        (
            "def spin():\n    try:\n        while True:\n            pass\n"
            "    finally:\n        return 1\nwhile True:\n    spin()",
            CPU_OR_WALL,
        ),
    ],
    ids=[
        "python-loop",
        "swallowing-loop",
        "c-sum",
        "catastrophic-regex",
        "bigint",
        "sleep",
        "exit-swallows",
        "finally-return-swallows",
    ],
)
def test_cpu_and_wall_limits(tight: Sandbox, source: str, codes: dict[str, str]) -> None:
    check_stopped(tight, source, codes, max_s=TIGHT.limits.wall_s + 1.5)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "source",
    [
        "x = 'a' * (2 * 1024**3)",
        "xs = []\nwhile True:\n    xs.append(bytearray(50 * 1024**2))",
        "bytearray(10**10)",
    ],
    ids=["big-string", "growing-list", "bytearray"],
)
def test_memory_limit(small_memory: Sandbox, source: str) -> None:
    check_stopped(small_memory, source, {"memory_limit": "memory"}, max_s=8)


def test_output_limit(tight: Sandbox) -> None:
    with tight.session() as session:
        execution = session.run("for i in range(10**6):\n    print('line', i)")
        assert execution.error_code == "output_limit"
        assert execution.stdout_truncated
        assert len(execution.stdout.encode()) <= TIGHT.limits.output_bytes
        assert execution.stdout.startswith("line 0\nline 1\n")
        assert "printed more than 1000 bytes" in execution.output.message  # type: ignore[union-attr]


def test_a_swallowed_output_limit_still_ends_the_run_at_the_limit(tight: Sandbox) -> None:
    # A context manager's __exit__ returning True is the one way a script stops an
    # exception it did not catch by name.
    source = (
        "class Quiet:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        return True\n"
        "with Quiet():\n    for i in range(10**6):\n        print('line', i)\n"
        "final_result('fine')"
    )
    with tight.session() as session:
        execution = session.run(source)
        assert execution.error_code == "output_limit", execution.output
        assert execution.stdout_truncated
        assert "printed more than 1000 bytes" in execution.output.message  # type: ignore[union-attr]
        assert session.run("final_result(1)").error_code is None  # the next run starts afresh


def test_result_limit(tight: Sandbox) -> None:
    with tight.session() as session:
        execution = session.run("final_result('x' * 10000)")
    assert execution.error_code == "output_limit"
    assert "larger than 5000 bytes" in execution.output.message  # type: ignore[union-attr]


def test_tool_call_limit(tight: Sandbox) -> None:
    calls: list[int] = []
    with tight.session(tools={"ping": lambda: calls.append(1)}) as session:
        execution = session.run(
            "for i in range(10):\n    try:\n        ping()\n    except Exception:\n        pass"
        )
    assert execution.error_code == "tool_call_limit"
    assert len(calls) == 3 and len(execution.tool_calls) == 3


def test_source_limit(tight: Sandbox) -> None:
    with tight.session() as session:
        execution = session.run("x = 1\n" * 1000)
    assert execution.error_code == "policy_violation"
    assert "longer than 2000 bytes" in execution.output.message  # type: ignore[union-attr]


def test_recursion_limit(tight: Sandbox) -> None:
    with tight.session() as session:
        execution = session.run("def f(n):\n    return f(n + 1)\nf(0)")
        assert execution.error_code == "runtime_error"
        assert "RecursionError" in execution.output.message  # type: ignore[union-attr]
        ok = session.run("def g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\nfinal_result(g(40))")
    assert ok.output == FinalResult(value=40)


@pytest.mark.timeout(30)
def test_deeply_nested_source_is_refused_not_fatal(tight: Sandbox) -> None:
    with tight.session() as session:
        execution = session.run("x = " + "[" * 1500 + "]" * 1500)
        assert execution.error_code in ("syntax_error", "policy_violation")
        assert session.run("final_result(2)").output == FinalResult(value=2)


@pytest.mark.timeout(30)
def test_c_level_recursion_crash_is_contained(tight: Sandbox) -> None:
    with tight.session() as session:
        execution = session.run(
            "x = []\nfor i in range(200000):\n    x = [x]\nfinal_result(len(repr(x)))"
        )
        assert execution.error_code in ("runtime_error", "worker_crashed", "cpu_limit")
        after = session.run("final_result(3)")
    assert after.output == FinalResult(value=3)


@pytest.mark.timeout(30)
def test_killed_worker_is_replaced_and_says_so(tight: Sandbox) -> None:
    with tight.session() as session:
        session.run("keep = 1")
        first_pid = session.pid
        assert session.run("import time\ntime.sleep(10)").error_code == "timeout"
        execution = session.run("try:\n    keep\nexcept NameError:\n    final_result('gone')")
        assert execution.worker_restarted
        assert execution.output == FinalResult(value="gone")
        assert session.pid != first_pid
