"""The Ray backend against the local one: throughput with a slow model, and the time
Ray adds to each sample.

A two-node Ray test cluster on this machine (``ray.cluster_utils.Cluster``; the head
takes no work) runs the same samples as the local backend:

- throughput: M3ToolEval's 82 tasks, golden replies from the loopback
  OpenAI-compatible fake after ``--latency`` seconds, ``--concurrency`` in flight;
- overhead: ``--model golden`` (no model latency), one sample at a time; the steady
  per-sample time (first to last finished sample, over the samples between) of the
  Ray backend minus the local one's is what dispatching a sample to a node's actor
  and bringing its record back costs.

Usage: ``python benchmarks/bench_ray.py [--latency S] [--concurrency N] [--tasks N] [--json]``
(needs ``pip install 'codeact[ray]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from codeact.bench.fake_server import serving  # noqa: E402
from codeact.bench.loading import load_suite  # noqa: E402
from codeact.bench.records import SampleRecord  # noqa: E402
from codeact.bench.runner import BenchConfig, Observer, run_bench  # noqa: E402


class _Clock(Observer):
    def __init__(self) -> None:
        self.times: list[float] = []
        self.nodes: set[str | None] = set()

    def finished(self, record: SampleRecord) -> None:
        self.times.append(time.monotonic())
        self.nodes.add(record.node)

    def steady_s(self) -> float:
        """Seconds per sample between the first and the last to finish."""
        return (self.times[-1] - self.times[0]) / max(1, len(self.times) - 1)


def _run(config: BenchConfig) -> tuple[float, _Clock]:
    clock = _Clock()
    started = time.monotonic()
    summary = asyncio.run(run_bench(config, clock))
    assert summary.passed == summary.samples, summary
    return time.monotonic() - started, clock


def measure(latency: float, concurrency: int, tasks: int, address: str) -> dict[str, Any]:
    suite = load_suite("m3tooleval")
    result: dict[str, Any] = {"latency_s": latency, "concurrency": concurrency, "tasks": tasks}
    with serving(suite, latency_s=latency) as server:
        for backend in ("local", "ray"):
            with tempfile.TemporaryDirectory() as log:
                config = BenchConfig(
                    suite=suite, model=f"openai-compatible:golden@{server.url}",
                    log_dir=Path(log), limit=tasks, concurrency=concurrency, backend=backend,
                    ray_address=address if backend == "ray" else None,
                )  # fmt: skip
                wall, clock = _run(config)
                result[f"{backend}_wall_s"] = round(wall, 2)
                # First to last finished sample: the run less its start (zygote, actors).
                result[f"{backend}_span_s"] = round(clock.times[-1] - clock.times[0], 2)
                result[f"{backend}_nodes"] = len(clock.nodes)
    for backend in ("local", "ray"):
        with tempfile.TemporaryDirectory() as log:
            config = BenchConfig(
                suite=suite, model="golden", log_dir=Path(log), limit=min(tasks, 40),
                concurrency=1, backend=backend,
                ray_address=address if backend == "ray" else None,
            )  # fmt: skip
            _wall, clock = _run(config)
            result[f"{backend}_per_sample_ms"] = round(clock.steady_s() * 1000, 1)
    result["ray_vs_local_throughput"] = round(result["local_wall_s"] / result["ray_wall_s"], 2)
    result["ray_overhead_ms"] = round(
        result["ray_per_sample_ms"] - result["local_per_sample_ms"], 1
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2, help="model latency, seconds")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=82)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import ray
    from ray.cluster_utils import Cluster

    from codeact.ray.cluster import LOOPBACK, on_loopback

    store = 80 * 1024 * 1024
    started = time.monotonic()
    head = {"num_cpus": 0, "include_dashboard": False, "object_store_memory": store,
            "node_ip_address": LOOPBACK}  # fmt: skip
    with on_loopback():  # a test cluster: every node on 127.0.0.1
        cluster = Cluster(initialize_head=True, head_node_args=head)
    try:
        # Each node declares enough CPUs for its share of the samples in flight (the
        # sandbox workers mostly wait for the model).
        with on_loopback():
            for _ in range(2):
                cluster.add_node(num_cpus=args.concurrency, object_store_memory=store,
                                 node_ip_address=LOOPBACK)  # fmt: skip
            cluster.wait_for_nodes()
            ray.init(address=cluster.address, log_to_driver=False, _node_ip_address=LOOPBACK)
        cluster_s = time.monotonic() - started
        result = measure(args.latency, args.concurrency, args.tasks, cluster.address)
        result["cluster_start_s"] = round(cluster_s, 1)
    finally:
        ray.shutdown()
        cluster.shutdown()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['tasks']} tasks, model latency {args.latency} s, "
            f"{args.concurrency} in flight: local {result['local_wall_s']} s, "
            f"Ray on {result['ray_nodes']} nodes {result['ray_wall_s']} s "
            f"({result['ray_vs_local_throughput']}x the local throughput; first to last "
            f"sample: local {result['local_span_s']} s, Ray {result['ray_span_s']} s)\n"
            f"one at a time, no model latency: local {result['local_per_sample_ms']} ms "
            f"a sample, Ray {result['ray_per_sample_ms']} ms: "
            f"Ray adds {result['ray_overhead_ms']} ms a sample"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
