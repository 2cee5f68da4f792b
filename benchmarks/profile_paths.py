"""Flame graphs of the executor's hot paths, host and worker side, with py-spy.

    pip install py-spy
    python benchmarks/profile_paths.py [--seconds 8] [--out benchmarks/profiles]

Each path runs in a loop in a process of its own while py-spy samples it: ``warm``
(a trivial script in a warm session), ``tool`` (a script calling a sync tool 20 times)
and ``fresh`` (a new session and its first script, over and over). It writes
``<path>_host.svg`` (the caller's process) and, for ``warm`` and ``tool``,
``<path>_worker.svg`` (the session's worker; a fresh session's worker lives too short
for py-spy to attach). py-spy cannot tell a thread waiting in ``recv``/``poll`` from a
busy one here: those frames are the time spent waiting for the other side.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"warm": "x = 1", "tool": "for i in range(20):\n    ping()", "fresh": "x = 1"}


def loop(path: str, seconds: float) -> None:
    """The profiled process: print the pids to sample, then run ``path`` until done."""
    sys.path.insert(0, str(ROOT))
    from sandbox import Sandbox

    source = SCRIPTS[path]
    with Sandbox("default", spares=2) as sb:
        with sb.session({"ping": lambda: 1}) as session:
            session.run(source)
            target = sb.health().zygote_pid if path == "fresh" else session.pid
            print(os.getpid(), target, flush=True)
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                if path == "fresh":
                    with sb.session() as fresh:
                        fresh.run(source)
                else:
                    session.run(source)


def record(path: str, seconds: float, out: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, __file__, "--loop", path, "--seconds", str(seconds + 4)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    host, target = child.stdout.readline().split()
    time.sleep(1)
    beside = Path(sys.executable).parent / "py-spy"  # a virtualenv's, off the PATH
    spy = [str(beside) if beside.exists() else "py-spy"]
    common = ["record", "--rate", "500", "--duration", str(int(seconds)), "--format", "flamegraph"]
    jobs = [subprocess.Popen([*spy, *common, "-p", host, "-o", str(out / f"{path}_host.svg")])]
    if path != "fresh":
        worker = [*spy, *common, "-p", target, "-o", str(out / f"{path}_worker.svg")]
        jobs.append(subprocess.Popen(worker))
    for job in jobs:
        job.wait()
    child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "profiles")
    parser.add_argument("--loop", choices=sorted(SCRIPTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.loop:
        loop(args.loop, args.seconds)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    for path in SCRIPTS:
        record(path, args.seconds, args.out)


if __name__ == "__main__":
    main()
