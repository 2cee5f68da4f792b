"""The escapes suite: every corpus attack in its own session, judged from the host.

Time limits are capped for the suite (wall ≤ 3 s, CPU ≤ 1/1.5 s, ≤ 20 tool calls) so
that it finishes in about a minute; the layers, modules, builtins and memory limit are
the policy's own. Cases whose evidence is shared (files, processes, host memory, the
channel) run one at a time; the others run concurrently.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import sandbox.probe.census as census
import sandbox.probe.procinfo as procinfo
from sandbox.errors import SandboxError
from sandbox.execution import Execution
from sandbox.policy import SandboxPolicy
from sandbox.probe.arena import CaseArena, SuiteArena
from sandbox.probe.corpus import AttackCase
from sandbox.probe.detectors import Bounds, Evidence, judge
from sandbox.probe.holder import SandboxHolder
from sandbox.probe.hoststate import HostProcess, can_queue_signal
from sandbox.probe.results import CaseResult, outcome_of, told
from sandbox.probe.safety import check_machine, check_policy
from sandbox.probe.victim import Victim

#: Categories whose evidence (files, processes, memory, channel) must not be shared.
EXCLUSIVE = frozenset(
    {
        "filesystem",
        "symlink",
        "processes",
        "signals-threads",
        "memory",
        "os",
        "output-flood",
        "exception-flood",
        "channel",
    }
)
FOLLOW_UP = 'final_result("probe-ok")'


def probe_policy(policy: SandboxPolicy) -> SandboxPolicy:
    """The policy with the suite's capped time and tool-call limits."""
    limits = policy.limits
    return policy.with_limits(
        wall_s=min(limits.wall_s, 3.0),
        cpu_soft_s=min(limits.cpu_soft_s, 1.0),
        cpu_hard_s=min(limits.cpu_hard_s, 1.5),
        tool_calls=min(limits.tool_calls, 20),
    )


def _follow_up(stage: SandboxHolder, token: str) -> str:
    sandbox = stage.sandbox
    try:
        with sandbox.session() as session:
            execution = session.run(FOLLOW_UP)
    except (SandboxError, OSError) as exc:
        stage.restart(sandbox)
        return f"the sandbox failed: {exc}"
    try:
        dump = execution.model_dump_json()
    except ValueError as exc:
        return f"a later session's result cannot be serialized: {exc}"
    if token in dump:
        return "a later session received the attack's forged data"
    if execution.output.type != "final_result" or execution.output.value != "probe-ok":
        return str(execution.output)[:200]
    return "ok"


def _result_bytes(execution: Execution) -> int:
    if execution.output.type in ("final_result", "observation"):
        return len(execution.output.model_dump_json())
    return 0


@dataclass
class RunRecord:
    """What the host saw of one run of an attack."""

    execution: Execution
    elapsed_s: float
    since: float
    rss_before: int
    tool_calls: int = 0
    tied: set[census.Identity] = field(default_factory=set)
    busy: bool = False
    followup: str = "ok"
    host_before: HostProcess | None = None
    host_signals_blocked: bool = False
    worker_cpu_s: float = 0.0
    victim: list[str] = field(default_factory=list)
    #: The sandbox's other processes, by their pid inside its PID namespace.
    others: list[int] = field(default_factory=list)


def observe(
    suite: SuiteArena, arena: CaseArena, record: RunRecord
) -> tuple[Evidence, list[census.Identity]]:
    """The host-side evidence of one case, and the processes that outlived it."""
    execution = record.execution
    survivors = census.alive(record.tied) + census.orphans(record.since, [arena.nonce])
    host_changes: list[str] = []
    if record.host_before is not None:
        host_changes = record.host_before.changes(HostProcess.now())
        host_changes += [f"{c}, and stays so" for c in record.host_before.restore()]
    unserializable = ""
    try:
        dump = execution.model_dump_json()
    except ValueError as exc:  # pydantic's serialization error
        dump, unserializable = repr(execution), str(exc)[:200]
    evidence = Evidence(
        dump=dump,
        secrets=arena.secrets(),
        marker_exists=arena.marker.exists() or arena.marker.is_symlink(),
        secret_intact=_intact(arena),
        secret_metadata_changed=arena.secret_metadata_changed(),
        host_process_changes=host_changes,
        host_open_failures=arena.open_failures(),
        changed_outside=suite.changes(),
        host_view=arena.view.effects(dump),
        rw_case_bytes=suite.rw_bytes(arena.nonce),
        rw_special_bits=suite.rw_special_bits(),
        unserializable=unserializable,
        host_signals_blocked=record.host_signals_blocked,
        worker_cpu_s=record.worker_cpu_s,
        victim=record.victim,
        other_pids=[n for n in record.others if f"other-pid={n}" in dump],
        contacted=arena.contacted(),
        decoy_killed=arena.decoy_killed,
        survivors=census.describe(survivors),
        elapsed_s=record.elapsed_s,
        busy_after_run=record.busy,
        stdout_bytes=len(execution.stdout.encode("utf-8", "replace")),
        result_bytes=_result_bytes(execution),
        peak_memory_bytes=execution.peak_memory_bytes,
        tool_invocations=record.tool_calls,
        followup=record.followup,
        host_rss_growth=procinfo.rss_bytes() - record.rss_before,
    )
    return evidence, survivors


def bounds_for(policy: SandboxPolicy, suite: SuiteArena) -> Bounds:
    """The limits the host must have enforced."""
    limits = policy.limits
    return Bounds(
        wall_s=limits.wall_s,
        output_bytes=limits.output_bytes,
        result_bytes=limits.result_bytes,
        memory_mb=limits.memory_mb,
        tool_calls=limits.tool_calls,
        rw_max_bytes=suite.rw_max_bytes,
        cpu_hard_s=limits.cpu_hard_s,
    )


def run_case(stage: SandboxHolder, suite: SuiteArena, case: AttackCase) -> CaseResult:
    """Run one attack and judge what it did."""
    arena = CaseArena(suite, case.source)
    calls: list[str] = []

    def probe_tool(value: str = "") -> str:
        """A host tool that only counts its calls."""
        calls.append(value)
        return "ok"

    rss_before, since, started = procinfo.rss_bytes(), time.time(), time.perf_counter()
    host_before = HostProcess.now()
    record: RunRecord | None = None
    limits = stage.policy.limits
    victim = _victim(stage, suite)
    try:
        if victim is not None:
            victim.start()
        with stage.sandbox.session(tools={"probe_tool": probe_tool}) as session:
            worker = session.pid
            # A host that fails to stop the run must not stall the whole suite.
            watchdog = threading.Timer(limits.wall_s * 1.5 + 10, session.kill)
            watchdog.start()
            cpu = procinfo.CpuSampler(worker)
            try:
                execution = session.run(arena.fill(case.source))
            finally:
                watchdog.cancel()
                used = cpu.stop()
            record = RunRecord(execution, time.perf_counter() - started, since, rss_before)
            record.worker_cpu_s = used
            # While the worker still holds whatever it queued.
            record.host_signals_blocked = not can_queue_signal()
            record.others = [
                n
                for pid in stage.sandbox.processes() - {worker}
                if (n := procinfo.namespace_pid(pid)) is not None
            ]
            record.host_before = host_before
            record.busy = _busy(session.pid) if execution.error_code is None else False
            record.tied = census.tied_to(worker) | census.tied_to(session.pid)
        if victim is not None:
            record.victim = victim.finish(repr(execution))
        record.tool_calls = len(calls)
        record.followup = _follow_up(stage, arena.token)
        evidence, survivors = observe(suite, arena, record)
        census.kill(survivors)
        effects = judge(evidence, bounds_for(stage.policy, suite))
        code = execution.error_code.value if execution.error_code else None
        return CaseResult(
            id=case.id,
            category=case.category,
            technique=case.technique,
            outcome=outcome_of(code, effects),
            error_code=code,
            expected=case.expected,
            detail="; ".join(effects) if effects else _summary(execution),
            duration_s=round(record.elapsed_s, 3),
            suite="escapes",
            policy_digest=stage.policy.digest(),
        )
    finally:
        if record is not None:
            census.kill(record.tied)
        arena.close()


def _busy(pid: int | None, window_s: float = 0.5) -> bool:
    """True when the worker keeps computing after its run ended (an idle one uses none)."""
    before = procinfo.read(pid) if pid is not None else None
    if before is None:
        return False
    time.sleep(window_s)
    after = procinfo.read(before.pid)
    return after is not None and after.cpu_s - before.cpu_s > window_s / 5


def _victim(stage: SandboxHolder, suite: SuiteArena) -> Victim | None:
    if not suite.victims:
        return None
    plain = not stage.policy.layers.language
    return Victim(stage.sandbox, str(suite.rw) if plain else suite.rw_path, suite.rw_path)


def _intact(arena: CaseArena) -> bool:
    try:
        return arena.secret.read_text() == f"SECRET={arena.secret_token}\n"
    except OSError:
        return False


def _summary(execution: Execution) -> str:
    output = execution.output
    text = output.message if output.type == "error" else str(output.model_dump())
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:200]


def run_escapes(
    policy: SandboxPolicy,
    cases: Sequence[AttackCase],
    *,
    workers: int = 3,
    allow_unconfined: bool = False,
    on_result: Callable[[CaseResult], None] | None = None,
    writable: bool = True,
    victims: bool = False,
) -> list[CaseResult]:
    """Run ``cases`` under ``policy`` (with the suite's capped limits), in corpus order.

    ``writable``: with the writable mount (else only the read-only one); ``victims``: a
    victim session on the same mount beside each case (``victim.py``).
    """
    check_policy(policy)
    with SuiteArena(probe_policy(policy), writable=writable, victims=victims) as suite:
        stage = SandboxHolder(suite.policy)
        try:
            check_machine(suite.policy, stage.sandbox, allow_unconfined=allow_unconfined)
            shared = [c for c in cases if c.category not in EXCLUSIVE]
            alone = [c for c in cases if c.category in EXCLUSIVE]
            with ThreadPoolExecutor(max(1, workers), thread_name_prefix="probe") as pool:
                done = list(pool.map(lambda c: told(on_result, run_case(stage, suite, c)), shared))
            done += [told(on_result, run_case(stage, suite, c)) for c in alone]
        finally:
            stage.close()
    order = {case.id: index for index, case in enumerate(cases)}
    return sorted(done, key=lambda r: order[r.id])
