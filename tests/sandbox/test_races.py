"""Shared structures under requesters arriving at one moment: admission's counters and
the spare pool. Each asserts the limit, no duplicates and no worker left behind (the
leak check of tests/conftest.py runs after each test too)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from sandbox import AsyncSandbox, Sandbox, SandboxPolicy
from sandbox.errors import AdmissionTimeout
from sandbox.host.spares import WorkerPool
from sandbox.host.workers import Zygote

pytestmark = pytest.mark.timeout(180)
POLICY = SandboxPolicy.preset("default")


class Census:
    """How many sessions are open at once, and which workers they had."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open = 0
        self.peak = 0
        self.pids: list[int | None] = []

    def enter(self, pid: int | None) -> None:
        with self.lock:
            self.open += 1
            self.peak = max(self.peak, self.open)
            self.pids.append(pid)

    def leave(self) -> None:
        with self.lock:
            self.open -= 1


def test_admission_holds_its_limit_for_threads_and_tasks_arriving_at_once() -> None:
    threads, tasks, limit = 16, 16, 5
    census = Census()
    refused: list[BaseException] = []
    with Sandbox(POLICY, spares=2, max_workers=limit, admission_timeout_s=60) as sb:
        go = threading.Barrier(threads + 1)

        def from_a_thread() -> None:
            go.wait()
            try:
                with sb.session() as session:
                    census.enter(session.pid)
                    assert session.run("final_result(1)").ok
                    time.sleep(0.02)
                    census.leave()
            except AdmissionTimeout as exc:
                refused.append(exc)

        async def from_tasks() -> None:
            view = AsyncSandbox.wrap(sb)
            start = asyncio.Event()

            async def one() -> None:
                await start.wait()
                async with view.session() as session:
                    census.enter(session.pid)
                    assert (await session.run("final_result(1)")).ok
                    await asyncio.sleep(0.02)
                    census.leave()

            running = [asyncio.create_task(one()) for _ in range(tasks)]
            await asyncio.sleep(0)
            await asyncio.to_thread(go.wait)  # the threads and the tasks go together
            start.set()
            await asyncio.gather(*running)

        workers = [threading.Thread(target=from_a_thread) for _ in range(threads)]
        for worker in workers:
            worker.start()
        asyncio.run(from_tasks())
        for worker in workers:
            worker.join(120)
        figures = sb.health().admission
        assert figures is not None
        assert not refused
        assert census.peak <= limit and census.open == 0
        assert len(census.pids) == threads + tasks
        assert len(set(census.pids)) == threads + tasks  # a worker is never handed out twice
        assert (figures.admitted, figures.waiting, figures.refused) == (0, 0, 0)
        health = sb.health()
        assert health.sessions_open == 0 and health.live_workers == 0


def test_the_spare_pool_hands_each_worker_out_once_to_takers_arriving_at_once() -> None:
    zygote = Zygote(POLICY.worker_config())
    pool = WorkerPool(zygote, 4)
    takers = 16
    go = threading.Barrier(takers)
    taken: list[int] = []
    lock = threading.Lock()
    try:

        def take() -> None:
            go.wait()
            worker = pool.acquire(30)
            pool.pids()  # looks at the spares (and refills) while others take them
            with lock:
                taken.append(worker.pid)
            assert worker.alive()
            worker.close()

        threads = [threading.Thread(target=take) for _ in range(takers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(taken) == takers and len(set(taken)) == takers
        # Refilled to its target, no more: forks in flight are counted, not repeated.
        deadline = time.monotonic() + 30
        while len(pool.pids()) < 4:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.3)
        assert len(pool.pids()) == 4 and not set(taken) & pool.pids()
    finally:
        pool.close()
        zygote.close()
