"""A tampered snapshot can at most fail: hand-made attacks, then fuzzing.

A snapshot comes back from wherever the caller kept it, so restoring treats it as
hostile: a malformed one is refused whole (SnapshotError), a value the policy does not
allow is lost (named in ``restored.lost``), and nothing is built that a script could
not have built itself. The fuzzers check the property over mutated snapshots: every
restore ends in one of those two ways, the worker answers (it never dies of it), and
the session runs scripts afterwards.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox import Sandbox, SandboxPolicy, SnapshotError

pytestmark = pytest.mark.timeout(300)

STATE = (
    "import math\nfrom collections import Counter\n"
    "class Box:\n    def __init__(self, v):\n        self.v = v\n        self._n = 1\n"
    "def scale(x, by=2):\n    return x * by\n"
    "box = Box([1, 2.5, 'a', (3, None)])\nbox.v.append(box)\n"
    "counts = Counter('aab')\ntable = {'k': box, 1: b'x'}\nlimit = 10 ** 20\n"
)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default"), spares=2) as sb:
        yield sb


@pytest.fixture(scope="module")
def document(sandbox: Sandbox) -> dict[str, Any]:
    with sandbox.session() as session:
        assert session.run(STATE).ok
        data: dict[str, Any] = json.loads(session.snapshot().data)
        return data


def _blob(document: dict[str, Any]) -> bytes:
    return json.dumps(document).encode()


def _with(document: dict[str, Any], **changes: Any) -> bytes:
    changed = copy.deepcopy(document)
    changed.update(changes)
    return _blob(changed)


def _restore(sandbox: Sandbox, blob: bytes) -> dict[str, str] | SnapshotError:
    """What restoring ``blob`` lost (name → reason), or the error that refused it; the
    session must run a script either way (a fresh one after a refusal)."""
    try:
        session = sandbox.session(restore=blob)
    except SnapshotError as exc:
        assert "died" not in str(exc), exc  # the worker refused it; it did not crash
        with sandbox.session() as fresh:
            assert fresh.run("final_result(1)").output.value == 1
        return exc
    with session:
        execution = session.run("final_result(2)")
        assert execution.output.type == "final_result", execution.output
        assert session.restored is not None
        return {x.name: x.reason for x in session.restored.lost}


def _variable(document: dict[str, Any], name: str, node: dict[str, Any]) -> bytes:
    changed = copy.deepcopy(document)
    changed["objects"].append(node)
    changed["globals"][name] = {"r": len(changed["objects"]) - 1}
    changed["variables"].append(name)
    return _blob(changed)


def test_the_untouched_snapshot_restores(sandbox: Sandbox, document: dict[str, Any]) -> None:
    assert _restore(sandbox, _blob(document)) == {}


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("def evil():\n    return ().__class__.__bases__[0].__subclasses__()", "__bases__"),
        ("import os\nevil = os.system", "os"),
        ("evil = open('/etc/passwd').read()", "open"),
    ],
)
def test_a_definition_runs_under_the_language_layer(
    sandbox: Sandbox, document: dict[str, Any], source: str, why: str
) -> None:
    changed = copy.deepcopy(document)
    changed["definitions"].append({"source": source, "binds": "evil"})
    changed["objects"].append({"t": "function", "def": len(changed["definitions"]) - 1})
    changed["globals"]["evil"] = {"r": len(changed["objects"]) - 1}
    lost = _restore(sandbox, _blob(changed))
    assert isinstance(lost, dict) and lost["evil"].startswith("its definition failed"), lost
    assert why.lower() in lost["evil"].lower() or "not defined" in lost["evil"], lost


def test_a_definition_that_never_ends_stops_at_the_cpu_limit(document: dict[str, Any]) -> None:
    default = SandboxPolicy.preset("default")
    quick = default.model_copy(
        update={"limits": default.limits.model_copy(update={"cpu_soft_s": 0.5, "cpu_hard_s": 1.0})}
    )
    changed = copy.deepcopy(document)
    changed["definitions"].append({"source": "while True:\n    pass", "binds": "evil"})
    changed["objects"].append({"t": "function", "def": len(changed["definitions"]) - 1})
    changed["globals"]["evil"] = {"r": len(changed["objects"]) - 1}
    with Sandbox(quick, spares=0) as sb:
        lost = _restore(sb, _blob(changed))
    assert isinstance(lost, dict) and "CPU" in lost["evil"], lost


@pytest.mark.parametrize(
    ("node", "reason"),
    [
        ({"t": "module", "name": "os"}, "cannot be imported under this policy"),
        ({"t": "module", "name": "subprocess"}, "cannot be imported under this policy"),
        ({"t": "member", "module": "math", "attr": "nope"}, "not available"),
        ({"t": "builtin", "name": "__import__"}, "not available"),
        ({"t": "builtin", "name": "exec_unknown"}, "not available"),
        (
            {"t": "object", "class": {"r": 1}, "state": [["x", 1]]},  # Counter: a library class
            "not the script's own",
        ),
        ({"t": "namespace", "state": [["__class__", 1]]}, "not one a script may set"),
        ({"t": "namespace", "state": [["_private", 1]]}, "not one a script may set"),
        ({"t": "ndarray", "dtype": "<f8", "shape": [2], "b64": "AAAA"}, "cannot be imported"),
    ],
)
def test_what_the_policy_does_not_allow_is_lost(
    sandbox: Sandbox, document: dict[str, Any], node: dict[str, Any], reason: str
) -> None:
    lost = _restore(sandbox, _variable(document, "planted", node))
    assert isinstance(lost, dict) and reason in lost["planted"], lost


@pytest.mark.parametrize(
    "node",
    [
        {"t": "pickle", "data": "gASV"},
        {"t": "tuple", "items": [{"r": 10_000}]},
        {"t": "list", "items": "not a list"},
        {"t": "float", "v": "__import__('os')"},
        {"t": "range", "args": [0, 10, 0]},
        {"t": "bytes", "b64": "***"},
        {"t": "object", "class": {"r": 0}, "state": []},  # a module as a class
    ],
)
def test_a_malformed_node_refuses_the_snapshot(
    sandbox: Sandbox, document: dict[str, Any], node: dict[str, Any]
) -> None:
    outcome = _restore(sandbox, _variable(document, "planted", node))
    assert isinstance(outcome, SnapshotError), outcome
    assert "malformed snapshot" in str(outcome) or "could not" in str(outcome)


def test_a_value_that_contains_itself_through_a_tuple_is_refused(
    sandbox: Sandbox, document: dict[str, Any]
) -> None:
    changed = copy.deepcopy(document)
    at = len(changed["objects"])
    changed["objects"].append({"t": "tuple", "items": [{"r": at}]})
    changed["globals"]["knot"] = {"r": at}
    assert isinstance(_restore(sandbox, _blob(changed)), SnapshotError)


def test_deep_nesting_is_refused(sandbox: Sandbox, document: dict[str, Any]) -> None:
    changed = copy.deepcopy(document)
    start = len(changed["objects"])
    for k in range(5000):
        changed["objects"].append({"t": "list", "items": [{"r": start + k + 1}]})
    changed["objects"].append({"t": "list", "items": []})
    changed["globals"]["deep"] = {"r": start}
    assert isinstance(_restore(sandbox, _blob(changed)), SnapshotError)


def test_not_a_snapshot_is_refused_before_it_is_sent(sandbox: Sandbox) -> None:
    for blob in (b"", b"[]", b"\x80\x04\x95\x00", b'{"format": "codeact-session-snapshot"}'):
        with pytest.raises(SnapshotError, match="not a session snapshot"):
            sandbox.session(restore=blob)
    with pytest.raises(SnapshotError, match="at most"):
        sandbox.session(restore=b" " * ((64 << 20) + 1))


# -- fuzzing ---------------------------------------------------------------------------
_KEYS = st.sampled_from(
    ["t", "r", "items", "v", "def", "class", "state", "name", "b64", "dtype", "shape", "args"]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_KEYS | st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.copy(document)
    changed[path[0]] = _replaced(document[path[0]], path[1:], value)
    return changed


_FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_FUZZ
@given(data=st.data())
def test_fuzz_a_replaced_node_at_most_fails(
    sandbox: Sandbox, document: dict[str, Any], data: st.DataObject
) -> None:
    paths = list(_paths(document))
    path = data.draw(st.sampled_from(paths[1:]), label="path")
    value = data.draw(JSON, label="value")
    _restore(sandbox, _blob(_replaced(document, path, value)))


@_FUZZ
@given(data=st.data())
def test_fuzz_flipped_bytes_at_most_fail(
    sandbox: Sandbox, document: dict[str, Any], data: st.DataObject
) -> None:
    blob = bytearray(_blob(document))
    for _ in range(data.draw(st.integers(1, 4), label="flips")):
        at = data.draw(st.integers(0, len(blob) - 1), label="at")
        blob[at] = data.draw(st.integers(0, 255), label="byte")
    if data.draw(st.booleans(), label="truncate"):
        blob = blob[: data.draw(st.integers(0, len(blob)), label="length")]
    _restore(sandbox, bytes(blob))
