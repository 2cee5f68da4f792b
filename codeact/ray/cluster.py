"""Connecting to Ray, and how big each node's sandbox actor may be.

Each actor declares the CPUs and memory its sandbox workers may use — the policy's
limits times its slots (samples or sessions at once) — so Ray never places more
sandbox work on a node than the node has.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from sandbox import SandboxPolicy

#: Memory for the actor process itself (interpreter, pydantic, codeact, Ray's worker
#: library): about 180 MB resident measured on Linux x86-64, rounded up.
ACTOR_BASE_BYTES = 256 * 1024 * 1024
#: A local Ray started for one run: a small object store (only plans, records and tool
#: arguments cross it, each well under a megabyte) and no dashboard.
LOCAL_OBJECT_STORE_BYTES = 128 * 1024 * 1024


#: Where a Ray started here listens: this machine's loopback address only.
LOOPBACK = "127.0.0.1"
#: Ray turns 127.0.0.1 into the machine's interface address (for other nodes to reach)
#: unless it runs as a single machine, the mode Windows and macOS get by default; this
#: variable asks for that mode (Ray reads it once, when it is imported).
_SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def on_loopback() -> Iterator[None]:
    """Ray nodes started, and drivers connected, inside this block take 127.0.0.1 as
    their address (with ``node_ip_address``/``_node_ip_address`` set to `LOOPBACK`):
    a Ray of this machine's own is not reachable from the network."""
    from ray._private import ray_constants

    saved = os.environ.get(_SINGLE_MACHINE), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[_SINGLE_MACHINE] = "0"  # for the processes Ray starts
    ray_constants.ENABLE_RAY_CLUSTER = False  # for this one, which read it already
    try:
        yield
    finally:
        if saved[0] is None:
            os.environ.pop(_SINGLE_MACHINE, None)
        else:
            os.environ[_SINGLE_MACHINE] = saved[0]
        ray_constants.ENABLE_RAY_CLUSTER = saved[1]


class Connection:
    """A connection to the cluster at `address` (None: a local Ray, started for us, on
    loopback only).

    A connection that was already open in this process (``ray.init`` by the caller)
    is used as it is and left open; one opened here is closed by `close`, which also
    stops a local Ray started here."""

    def __init__(self, address: str | None) -> None:
        self.address = address
        self.owned = False

    @property
    def label(self) -> str:
        return f"ray@{self.address or 'local'}"

    def open(self) -> None:
        if ray.is_initialized():
            return
        if self.address is None:
            with on_loopback():
                ray.init(
                    address="local",
                    include_dashboard=False,
                    log_to_driver=False,
                    object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                    _node_ip_address=LOOPBACK,
                )
        else:
            ray.init(address=self.address, log_to_driver=False)
        self.owned = True

    def close(self) -> None:
        if self.owned:
            self.owned = False
            ray.shutdown()


@dataclass(frozen=True)
class Placement:
    """The resources one slot of a sandbox actor takes on its node."""

    cpus_per_slot: float
    bytes_per_slot: int

    @classmethod
    def for_policy(cls, policy: SandboxPolicy, cpus_per_slot: float | None = None) -> Placement:
        """From the policy: a worker runs one thread and is stopped after ``cpu_hard_s``
        of CPU within ``wall_s``, so it uses at most that share of a core over a run;
        it may map ``memory_mb`` of address space."""
        limits = policy.limits
        if cpus_per_slot is None:
            cpus_per_slot = min(1.0, limits.cpu_hard_s / limits.wall_s)
        if cpus_per_slot <= 0:
            raise ValueError("cpus_per_slot must be above 0")
        return cls(round(cpus_per_slot, 4), limits.memory_mb * 1024 * 1024)

    def fit(self, resources: dict[str, float], wanted: int) -> int:
        """How many of `wanted` slots a node with these total resources can hold."""
        by_cpu = math.floor(resources.get("CPU", 0.0) / self.cpus_per_slot + 1e-9)
        room = resources.get("memory", 0.0) - ACTOR_BASE_BYTES
        by_memory = math.floor(room / self.bytes_per_slot) if room > 0 else 0
        return max(0, min(wanted, by_cpu, by_memory))

    def options(self, node_id: str, slots: int) -> dict[str, Any]:
        """``.options()`` for the actor of `slots` slots pinned to `node_id`."""
        return {
            "num_cpus": round(slots * self.cpus_per_slot, 4),
            "memory": slots * self.bytes_per_slot + ACTOR_BASE_BYTES,
            "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=False),
            # A dead actor is replaced by the fleet, and its calls are not run again by
            # Ray behind the runner's back: a sample is attempted once per attempt.
            "max_restarts": 0,
            "max_task_retries": 0,
            # Every slot's call plus the tool-call traffic of its session.
            "max_concurrency": 4 * slots + 16,
        }


def alive_nodes() -> list[tuple[str, dict[str, float]]]:
    """(node id, total resources) of every live node."""
    nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    return [(n["NodeID"], dict(n["Resources"])) for n in nodes if n.get("Alive")]


def node_alive(node_id: str) -> bool:
    return any(node == node_id for node, _ in alive_nodes())


def here() -> str:
    """The id of the node this process runs on."""
    return str(ray.get_runtime_context().get_node_id())
