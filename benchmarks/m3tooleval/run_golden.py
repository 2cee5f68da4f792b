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

    names = argv or golden_task_names()
    passed = 0
    for name in names:
        try:
            run = run_golden(name)
        except Exception as exc:
            print(f"ERROR {name}: {type(exc).__name__}: {exc}")
            continue
        passed += run.passed
        verdict = "pass" if run.passed else "FAIL"
        print(f"{verdict} {name}: answer={run.value!r} expected={run.task.expected_output!r}")
    print(f"total: {passed}/{len(names)} passed")
    return 0 if passed == len(names) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
