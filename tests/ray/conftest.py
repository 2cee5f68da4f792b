"""One small two-node Ray cluster on this machine for the Ray tests (Ray's own test
cluster), started by the first test that needs it and stopped after the last Ray test
in a row. Every node and the driver have a loopback address (checked): test traffic
never leaves the machine. The head node takes no work (num_cpus=0): samples and sessions run on the
two worker nodes, each declaring 4 CPUs — more than the machine's cores, which Ray
allows; the sandbox workers mostly wait for a model or a tool."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.processes import accounted, live_children

#: Each node's object store: only plans, records and tool arguments cross it.
STORE = 80 * 1024 * 1024


_CLUSTER: list[Any] = []  # the running cluster, if any


def _start_cluster() -> Any:
    import ray
    from ray.cluster_utils import Cluster

    from codeact.ray.cluster import LOOPBACK, on_loopback

    with on_loopback():
        started = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 0,
                "include_dashboard": False,
                "object_store_memory": STORE,
                "node_ip_address": LOOPBACK,
                # A node that dies is declared dead in about 2 s rather than Ray's 15.
                "_system_config": {
                    "health_check_period_ms": 500, "health_check_failure_threshold": 4
                },
            },
        )
        _CLUSTER.append(started)
        for _ in range(2):
            add_node(started)
        started.wait_for_nodes()
        ray.init(address=started.address, log_to_driver=False, _node_ip_address=LOOPBACK)
    assert_on_loopback()
    return started


def add_node(cluster: Any) -> Any:
    """One more worker node of the test cluster, on loopback like the rest."""
    from codeact.ray.cluster import LOOPBACK, on_loopback

    with on_loopback():
        return cluster.add_node(num_cpus=4, object_store_memory=STORE, node_ip_address=LOOPBACK)


def assert_on_loopback() -> None:
    """Every node of the cluster, and this driver, have a loopback address."""
    import ray

    addresses = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    addresses.add(ray.util.get_node_ip_address())
    assert all(ipaddress.ip_address(a).is_loopback for a in addresses), addresses


def _stop_cluster() -> None:
    import ray

    while _CLUSTER:
        ray.shutdown()
        _CLUSTER.pop().shutdown()


@pytest.fixture
def cluster() -> Any:
    """The cluster, started by the first test that needs it."""
    return _CLUSTER[0] if _CLUSTER else _start_cluster()


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop the cluster once the Ray tests of this process are done: the tests that
    follow check that nothing they did not start is running."""
    here = Path(__file__).parent
    if nextitem is None or here not in Path(nextitem.path).parents:
        _stop_cluster()


def pytest_sessionfinish() -> None:
    _stop_cluster()


@pytest.fixture
def worker_nodes(cluster: Any) -> set[str]:
    """The ids of the two nodes that take work."""
    import ray

    return {n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU")}


def _ray_owned(pid: int) -> bool:
    """A process of Ray's own: a daemon of the cluster or a worker process, which Ray
    keeps for reuse after an actor ends."""
    try:
        cmdline = psutil.Process(pid).cmdline()
    except psutil.NoSuchProcess:
        return True
    if not cmdline:
        return False
    return cmdline[0].startswith("ray::") or "/site-packages/ray/" in " ".join(cmdline[:3])


@pytest.fixture(autouse=True)
def no_leaked_processes() -> Iterator[None]:
    """The root check, less Ray's processes: whatever else a test started — a zygote or
    a worker that an actor left behind — must be gone after it."""
    before = live_children()
    yield
    deadline = time.monotonic() + 10
    while True:
        leaked = {p for p in live_children() - before - accounted() if not _ray_owned(p)}
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    details = []
    for pid in leaked:
        try:
            details.append(f"{pid}: {' '.join(psutil.Process(pid).cmdline())[:120]}")
        except psutil.NoSuchProcess:
            continue
    assert not details, f"processes left behind: {details}"
