"""What a writable mount costs a fresh session: the overlay beside the staged copy.

    python benchmarks/private_writes.py [--quick]

Each session's worker covers a writable mount with a private view. An overlay copies
nothing until the script changes something, so its cost should not depend on the
directory; a staged copy (where the kernel has no overlay) copies the directory into the
worker's memory at every fork. Measured with no spare workers, so that the fork, the
confinement and the view are all on the session's path: the median of "new session +
first script" over a 10,000-file directory of 500 MB, and of 100 MB (which a staged
copy may still hold). ``benchmarks/executor.py`` reports the same rows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox import Mount, Sandbox, SandboxError, SandboxPolicy

FILES = 10_000


class _Copies(SandboxPolicy):
    """A policy whose workers make staged copies, as where there is no overlay."""

    def worker_config(self) -> dict[str, Any]:
        return {**super().worker_config(), "private_via": "copy"}


def make_tree(root: Path, total_bytes: int) -> Path:
    """``FILES`` files of real (non-sparse) data, ``total_bytes`` together."""
    root.mkdir()
    chunk = b"x" * (total_bytes // FILES)
    for index in range(FILES):
        sub = root / f"d{index // 500:02}"
        sub.mkdir(exist_ok=True)
        (sub / f"f{index:05}.bin").write_bytes(chunk)
    return root


def fresh_session_ms(policy: SandboxPolicy, count: int) -> float | str:
    """Median ms of a new session and its first script, or why there is none."""
    samples = []
    try:
        with Sandbox(policy, spares=0) as sandbox:
            for _ in range(count):
                started = time.perf_counter()
                with sandbox.session() as session:
                    session.run("x = 1")
                samples.append(time.perf_counter() - started)
    except SandboxError as exc:
        reason = str(exc).split("no staged copy: ")[-1].split(")")[0]
        return "refused: " + reason.replace(str(policy.mounts[-1].host_path), "the directory")
    return statistics.median(samples) * 1e3


def rows(quick: bool) -> list[dict[str, Any]]:
    """The executor benchmark's rows for private writes."""
    count = 10 if quick else 40
    base = Path(tempfile.mkdtemp(prefix="codeact-bench-writes-"))
    found: list[dict[str, Any]] = []
    try:
        for megabytes in (500, 100):
            tree = make_tree(base / f"{megabytes}mb", megabytes << 20)
            os.sync()  # the tree's writeback must not slow what is measured
            mount = Mount(sandbox_path="/out", host_path=str(tree), mode="rw")
            policy = SandboxPolicy.preset("default").with_mounts(mount)
            bare = fresh_session_ms(SandboxPolicy.preset("default"), count)
            overlay = fresh_session_ms(policy, count)
            copy = fresh_session_ms(_Copies.model_validate(policy.model_dump()), count)
            for how, figure in (("overlay", overlay), ("staged copy", copy)):
                measured = isinstance(figure, float)
                found.append(
                    {
                        "id": "w",
                        "what": f"new session, rw {FILES} files {megabytes} MB, {how}",
                        "value": figure if measured else float("nan"),
                        "unit": "ms median",
                        "baseline": f"no spares; no mount {bare:.1f} ms" if measured else figure,
                        "goal": 50.0 if how == "overlay" else None,
                        "lower_is_better": True,
                    }
                )
            shutil.rmtree(tree)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    for row in rows(args.quick):
        print(f"{row['what']:60} {row['value']:8.1f} {row['unit']}  {row['baseline']}")


if __name__ == "__main__":
    main()
