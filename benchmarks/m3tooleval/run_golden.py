"""Run every golden reply file through the agent loop: one line per task, then a total.

Usage: ``python benchmarks/m3tooleval/run_golden.py [TASK_NAME ...]``
"""

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Run the named (by default all) golden tasks; exit status 0 when all pass."""
    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from benchmarks.m3tooleval.golden import golden_task_names
    from benchmarks.m3tooleval.runner import run_golden
    from sandbox import Sandbox

    names = argv or golden_task_names()
    passed = 0
    # One sandbox for every task: each run still gets a fresh worker.
    with Sandbox() as sandbox:
        for name in names:
            try:
                run = run_golden(name, sandbox=sandbox)
            except Exception as exc:
                print(f"ERROR {name}: {type(exc).__name__}: {exc}")
                continue
            passed += run.passed
            verdict = "pass" if run.passed else "FAIL"
            answer, expected = run.value, run.task.expected_output
            print(f"{verdict} {name}: answer={answer!r} expected={expected!r}")
    print(f"total: {passed}/{len(names)} passed")
    return 0 if passed == len(names) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
