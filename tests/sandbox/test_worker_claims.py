"""A hostile worker (the language layer off, plain Python) cannot make the host report
what only the host decides, nor numbers that break its own accounting."""

from __future__ import annotations

import json

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.host.frames import parse_worker_message

#: Finds this run's ``seq`` in the worker's own frames, then sends a ``done`` for it.
_FORGE = """
import json, os, stat, sys
frame = sys._getframe()
while frame is not None and not isinstance(frame.f_locals.get("run"), dict):
    frame = frame.f_back
done = {"op": "done", "output": {"type": "final_result", "value": "forged"},
        "seq": frame.f_locals["run"]["seq"], **FIELDS}
data = json.dumps(done).encode()
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, len(data).to_bytes(4, "big") + data)
    except OSError:
        pass
import time
time.sleep(5)
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "fields",
    [
        '{"error_code": "cancelled"}',
        '{"error_code": "timeout"}',
        '{"process_cpu_s": float("nan")}',
        '{"cpu_s": -1.0, "peak_memory_bytes": -1}',
    ],
)
def test_a_worker_cannot_claim_host_decisions_or_impossible_figures(fields: str) -> None:
    policy = SandboxPolicy.preset("default").with_layers(language=False)
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        execution = session.run(_FORGE.replace("FIELDS", fields))
    assert execution.error_code == "worker_crashed", execution
    assert "forged" not in execution.model_dump_json()


@pytest.mark.parametrize(
    "fields",
    [
        {"error_code": "cancelled"},
        {"error_code": "worker_crashed"},
        {"process_cpu_s": "NaN"},
        {"cpu_s": "Infinity"},
        {"peak_memory_bytes": -1},
    ],
)
def test_the_host_refuses_a_done_frame_claiming(fields: dict[str, object]) -> None:
    done = {"op": "done", "output": {"type": "observation", "value": ""}, **fields}
    text = json.dumps(done).replace('"NaN"', "NaN").replace('"Infinity"', "Infinity")
    with pytest.raises(ValueError):
        parse_worker_message(text.encode())


def test_the_host_takes_the_workers_own_codes() -> None:
    for code in ("cpu_limit", "output_limit", "tool_call_limit", "runtime_error"):
        done = {"op": "done", "output": {"type": "observation", "value": ""}, "error_code": code}
        assert parse_worker_message(json.dumps(done).encode()).error_code == code  # type: ignore[union-attr]
