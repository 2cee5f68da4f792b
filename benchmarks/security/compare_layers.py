"""Run a suite under the default policy with all layers, without the language layer and
without the OS layer, and print the attack success rate per category side by side.

    python benchmarks/security/compare_layers.py [escapes|redcode] [--json DIR]

Never runs a suite with both layers off; refuses the language-off run where Landlock or
seccomp is degraded on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sandbox import SandboxPolicy
from sandbox.probe import CaseResult, render_comparison, render_table, run_suite

CONFIGURATIONS = {
    "all layers": {},
    "language off": {"language": False},
    "os off": {"os": False},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", default="escapes")
    parser.add_argument("--json", type=Path, help="write each run's records (JSON lines) here")
    args = parser.parse_args()
    runs: dict[str, list[CaseResult]] = {}
    for label, layers in CONFIGURATIONS.items():
        policy = SandboxPolicy.preset("default").with_layers(**layers)
        started = time.perf_counter()
        runs[label] = run_suite(policy, args.suite)
        print(render_table(runs[label], f"{args.suite}, default policy, {label}"))
        print(f"({time.perf_counter() - started:.0f} s)\n")
        if args.json:
            args.json.mkdir(parents=True, exist_ok=True)
            path = args.json / f"{args.suite}-{label.replace(' ', '-')}.jsonl"
            path.write_text("".join(r.model_dump_json() + "\n" for r in runs[label]))
    print("attack success rate (escaped / cases):")
    print(render_comparison(runs))
    escaped = [
        f"{label}: {r.id}: {r.detail}"
        for label, rs in runs.items()
        for r in rs
        if r.outcome == "escaped"
    ]
    if escaped:
        print("\nescapes:")
        print("\n".join(escaped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
