"""``codeact bench run --backend ray`` on the two-node test cluster: the local backend's
records, samples on both nodes, resume across backends, and a sandbox actor killed
mid-run without losing or doubling a sample."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest

pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeact[ray]'")

from codeact.bench import SampleRecord
from codeact.bench.fake_server import serving
from codeact.bench.loading import load_suite
from codeact.bench.logdir import LogDir
from codeact.bench.runner import BenchConfig, Observer, run_bench
from codeact.cli import main
from tests.ray.conftest import add_node, assert_on_loopback

ROOT = Path(__file__).resolve().parents[2]
#: What differs between two runs of the same samples: timings, the node, and the
#: random ids of runs and messages.
VARYING = {"duration_s", "sandbox_cpu_s", "sandbox_wall_s", "node", "run_id", "id"}


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


def _records(log: Path) -> dict[str, SampleRecord]:
    lines = (log / "samples.jsonl").read_text().splitlines()
    records = [SampleRecord.model_validate_json(line) for line in lines]
    assert len({r.id for r in records}) == len(records), "a sample was logged twice"
    return {r.id: r for r in records}


def _bench(log: Path, *extra: str) -> int:
    argv = ["bench", "run", "m3tooleval", "--model", "golden", "--log-dir", str(log)]
    return main([*argv, "--concurrency", "8", "--display", "none", *extra])


@pytest.mark.timeout(240)
def test_golden_on_two_nodes_gives_the_local_records(
    cluster: Any, worker_nodes: set[str], tmp_path: Path
) -> None:
    ray_args = ["--backend", "ray", "--ray-address", cluster.address]
    assert _bench(tmp_path / "local") == 0
    assert _bench(tmp_path / "ray", *ray_args) == 0
    local, on_ray = _records(tmp_path / "local"), _records(tmp_path / "ray")
    assert len(on_ray) == 82 and all(r.status == "passed" for r in on_ray.values())
    assert {r.node for r in on_ray.values()} == worker_nodes
    assert all(r.node is None for r in local.values())
    assert set(local) == set(on_ray)
    for ident, record in local.items():
        assert _comparable(record.model_dump(mode="json")) == _comparable(
            on_ray[ident].model_dump(mode="json")
        ), record.task
    # A run started here is finished on the cluster: only the samples left run there.
    mixed = tmp_path / "mixed"
    assert _bench(mixed, "--limit", "10") == 0
    assert _bench(mixed, *ray_args) == 0
    resumed = _records(mixed)
    assert set(resumed) == set(local)
    assert sum(r.node is None for r in resumed.values()) == 10
    info = LogDir(mixed).read_run()
    assert info is not None and info.backends == ["local", f"ray@{cluster.address}"]


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


class _KillOneActor(Observer):
    """Kills one node's sandbox actor (SIGKILL) once `after` samples have finished."""

    def __init__(self, after: int) -> None:
        self.after, self.finished_ids, self.killed_at = after, [], None  # type: ignore[var-annotated]
        self.killed: int | None = None

    def finished(self, record: SampleRecord) -> None:
        self.finished_ids.append(record.id)
        if self.killed is None and len(self.finished_ids) >= self.after:
            # This test cluster's actors only (its raylets are this process's children):
            # other Ray clusters may run on the machine.
            actors = [
                p for p in psutil.Process().children(recursive=True)
                if (_cmdline(p) or [""])[0].startswith("ray::BenchNode")
            ]  # fmt: skip
            assert len(actors) == 2, actors
            self.killed = actors[0].pid
            self.killed_at = len(self.finished_ids)
            os.kill(self.killed, signal.SIGKILL)


@pytest.mark.timeout(240)
def test_a_killed_sandbox_actor_loses_no_sample(
    cluster: Any, worker_nodes: set[str], tmp_path: Path
) -> None:
    suite = load_suite("m3tooleval")
    observer = _KillOneActor(after=12)
    with serving(suite, latency_s=0.15) as server:
        config = BenchConfig(
            suite=suite, model=f"openai-compatible:golden@{server.url}", log_dir=tmp_path,
            concurrency=8, backend="ray", ray_address=cluster.address,
        )  # fmt: skip
        summary = asyncio.run(run_bench(config, observer))
    assert observer.killed is not None
    records = _records(tmp_path)
    assert (len(records), summary.samples, summary.passed) == (82, 82, 82)
    crashed = [r for r in records.values() if r.attempts]
    assert crashed, "the killed actor had samples in flight"
    for record in crashed:
        assert [a.failure_code for a in record.attempts] == ["worker_crashed"]
        assert "died" in record.attempts[0].message
    lost_node = crashed[0].attempts[0].node
    assert lost_node in worker_nodes
    assert {a.node for r in crashed for a in r.attempts} == {lost_node}
    # The dead actor was replaced: samples that started after the kill ran on its node.
    order = [records[i] for i in observer.finished_ids]
    assert any(r.node == lost_node for r in order[observer.killed_at + len(crashed) :])


@pytest.mark.timeout(240)
def test_a_node_that_dies_mid_run_loses_no_sample(
    cluster: Any, worker_nodes: set[str], tmp_path: Path
) -> None:
    import ray

    extra = add_node(cluster)
    cluster.wait_for_nodes()
    assert_on_loopback()
    doomed = (
        {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        - worker_nodes
        - {n["NodeID"] for n in ray.nodes() if not n["Resources"].get("CPU")}
    )
    assert len(doomed) == 1
    (doomed_id,) = doomed

    class _RemoveNode(Observer):
        def __init__(self) -> None:
            self.count = 0
            self.remover: threading.Thread | None = None

        def finished(self, record: SampleRecord) -> None:
            self.count += 1
            if self.count == 12:
                kill = functools.partial(cluster.remove_node, extra, allow_graceful=False)
                self.remover = threading.Thread(target=kill)
                self.remover.start()

    suite = load_suite("m3tooleval")
    observer = _RemoveNode()
    with serving(suite, latency_s=0.15) as server:
        config = BenchConfig(
            suite=suite, model=f"openai-compatible:golden@{server.url}", log_dir=tmp_path,
            concurrency=9, backend="ray", ray_address=cluster.address,
        )  # fmt: skip
        summary = asyncio.run(run_bench(config, observer))
    assert observer.remover is not None
    observer.remover.join(30)
    records = _records(tmp_path)
    assert (len(records), summary.samples, summary.passed) == (82, 82, 82)
    crashed = [r for r in records.values() if r.attempts]
    assert crashed and all(a.node == doomed_id for r in crashed for a in r.attempts)
    # Retried elsewhere: the node is gone, so nothing replaced its actor.
    assert all(r.node in worker_nodes for r in crashed)
    assert {r.node for r in records.values()} == worker_nodes | {doomed_id}


@pytest.mark.timeout(180)
def test_without_an_address_a_local_ray_runs_and_stops(tmp_path: Path) -> None:
    def rays() -> set[int]:
        return {
            p.pid for p in psutil.process_iter(["cmdline"])
            if any("raylet" in part or "gcs_server" in part for part in p.info["cmdline"] or [])
        }  # fmt: skip

    before = rays()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    argv = [sys.executable, "-m", "codeact.cli", "bench", "run", "m3tooleval", "--model",
            "golden", "--limit", "3", "--backend", "ray", "--log-dir", str(tmp_path),
            "--display", "none", "--json"]  # fmt: skip
    done = subprocess.run(
        argv, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=150,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["passed"] == 3
    assert all(r.node for r in _records(tmp_path).values())
    _gone, alive = psutil.wait_procs(
        [psutil.Process(p) for p in rays() - before if psutil.pid_exists(p)], timeout=20
    )
    assert not alive, f"the local Ray outlived the run: {alive}"
