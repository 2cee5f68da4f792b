"""One small two-node Ray cluster on this machine for every Ray test (Ray's own test
cluster). The head node takes no work (num_cpus=0): samples and sessions run on the
two worker nodes, each declaring 4 CPUs — more than the machine's cores, which Ray
allows; the sandbox workers mostly wait for a model or a tool."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeact[ray]'")

#: Each node's object store: only plans, records and tool arguments cross it.
STORE = 80 * 1024 * 1024


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    started = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "include_dashboard": False, "object_store_memory": STORE},
    )
    try:
        for _ in range(2):
            started.add_node(num_cpus=4, object_store_memory=STORE)
        started.wait_for_nodes()
        ray.init(address=started.address, log_to_driver=False)
        yield started
    finally:
        ray.shutdown()
        started.shutdown()


@pytest.fixture
def worker_nodes(cluster: Any) -> set[str]:
    """The ids of the two nodes that take work."""
    return {n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU")}
