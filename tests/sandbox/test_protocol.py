"""The host↔worker contract (``sandbox/protocol.py``) is complete and is the one in use.

- every op has a frame shape, in exactly one direction, and each side reads and builds
  its ops through :class:`Op` (no op spelled as a string anywhere else);
- the host's pydantic models are the worker frames, field for field;
- framing: the worker replaces a lone surrogate in what a script produced, the host
  refuses to send one and refuses malformed frames; the hand-built hot-path frames are
  the generic encoder's frames;
- the error codes: one set on the wire, the same as ``ErrorCode``, no literal left in
  the worker.
"""

from __future__ import annotations

import ast
import json
import socket
import struct
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from sandbox import ErrorCode, SandboxPolicy
from sandbox import protocol as p
from sandbox.host.frames import (
    WORKER_MESSAGES,
    Call,
    Hello,
    RunDone,
    WorkerMessage,
    parse_worker_message,
)

ROOT = Path(p.__file__).resolve().parent

DIRECTIONS: dict[str, Any] = {
    "host → worker": p.HostFrame,
    "worker → host": p.WorkerFrame,
    "host → zygote": p.ZygoteRequest,
    "zygote → host": p.ZygoteNotice,
}

#: Who builds and who reads each direction's messages (paths under sandbox/).
SENDERS = {
    "host → worker": ("protocol.py", "host/session.py", "host/tools.py", "host/snapshots.py"),
    "worker → host": ("worker/serve.py", "worker/runtime.py", "worker/tool_stubs.py"),
    "host → zygote": ("host/workers.py",),
    "zygote → host": ("worker/zygote.py",),
}
READERS = {
    "host → worker": ("worker/serve.py", "worker/tool_channel.py"),
    "worker → host": ("host/frames.py", "host/session.py"),
    "host → zygote": ("worker/zygote.py",),
    "zygote → host": ("host/workers.py",),
}


def op_of(shape: Any) -> str:
    (op,) = typing.get_args(typing.get_type_hints(shape)["op"])
    assert isinstance(op, str)
    return op


def ops_of(direction: str) -> set[str]:
    return {op_of(shape) for shape in typing.get_args(DIRECTIONS[direction])}


def op_references(relative: str) -> set[str]:
    """The ops a module's source names: ``Op.X``, or (the host's pydantic models, not
    the protocol's own shapes) a model's ``op: Literal["x"]``."""
    found = set()
    models = relative == "host/frames.py"
    for node in ast.walk(ast.parse((ROOT / relative).read_text())):
        if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "Op":
            found.add(getattr(p.Op, node.attr))
        elif (
            models and isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "op"
        ):
            found |= {c.value for c in ast.walk(node.annotation) if isinstance(c, ast.Constant)}
    return found & p.OPS


# -- ops and shapes ---------------------------------------------------------------------
def test_every_op_has_a_frame_shape_in_exactly_one_direction() -> None:
    seen: dict[str, str] = {}
    for direction in DIRECTIONS:
        for op in ops_of(direction):
            assert op not in seen, f"{op} is used both {seen[op]} and {direction}"
            seen[op] = direction
    assert set(seen) == p.OPS


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_each_op_is_built_by_its_sender_and_read_by_its_receiver(direction: str) -> None:
    ops = ops_of(direction)
    built = set().union(*(op_references(path) for path in SENDERS[direction]))
    read = set().union(*(op_references(path) for path in READERS[direction]))
    assert ops <= built, f"never built: {ops - built}"
    assert ops <= read, f"never read: {ops - read}"


def test_no_module_spells_an_op_as_a_string() -> None:
    values = p.OPS

    def is_op_access(node: ast.AST) -> bool:
        # message.op, message["op"], message.get("op")
        if isinstance(node, ast.Attribute):
            return node.attr == "op"
        if isinstance(node, ast.Subscript):
            return isinstance(node.slice, ast.Constant) and node.slice.value == "op"
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and bool(node.args)
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "op"
        )

    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "protocol.py" or "probe" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    spelled = isinstance(value, ast.Constant) and value.value in values
                    if isinstance(key, ast.Constant) and key.value == "op" and spelled:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(is_op_access(side) for side in sides) and any(
                    isinstance(side, ast.Constant) and side.value in values for side in sides
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_the_hosts_models_are_the_worker_frames_field_for_field() -> None:
    shapes = {op_of(shape): shape for shape in typing.get_args(p.WorkerFrame)}
    union_members = typing.get_args(typing.get_args(WorkerMessage)[0])
    assert set(union_members) == set(WORKER_MESSAGES)
    models = {op_of(model): model for model in WORKER_MESSAGES}
    assert set(models) == set(shapes)
    for op, model in models.items():
        shape = shapes[op]
        required = {name for name, field in model.model_fields.items() if field.is_required()}
        optional = set(model.model_fields) - required
        assert required == set(shape.__required_keys__), op
        assert optional == set(shape.__optional_keys__), op


def test_the_policys_worker_configuration_has_the_protocols_shape() -> None:
    for preset in ("default", "data"):
        config = SandboxPolicy.preset(preset).worker_config()
        assert set(p.WorkerConfig.__required_keys__) <= set(config), preset
        assert set(config) <= set(p.WorkerConfig.__annotations__), preset


# -- framing ----------------------------------------------------------------------------
def read_back(frame: bytes) -> bytes:
    """``frame`` sent through a real socket and read with the protocol's reader."""
    left, right = socket.socketpair()
    with left, right:
        left.sendall(frame)
        return p.FrameReader(right, max_frame=1 << 20).read_frame()


def test_the_host_refuses_to_send_a_lone_surrogate_and_says_where() -> None:
    frame: p.RunFrame = {"op": p.Op.RUN, "seq": 1, "source": "x = 1\ny = '\udcff'"}
    with pytest.raises(p.UnencodableText, match=r"lone surrogate \\udcff"):
        p.encode(frame)
    with pytest.raises(p.UnencodableText, match=r"lone surrogate \\udcff"):
        p.encode_run(frame["source"], 1)
    problem = p.check_text(frame["source"])
    assert problem is not None and "\\udcff at line 2, column 6" in problem
    assert p.check_text("é ☃") is None


def test_the_worker_replaces_a_lone_surrogate_in_what_the_script_produced() -> None:
    output = json.dumps({"type": "final_result", "value": "r\ud800"}, ensure_ascii=False)
    done: p.DoneFrame = {"op": p.Op.DONE, "output": output, "stdout": "p\udcff", "seq": 4}
    message = parse_worker_message(read_back(p.encode_done(done)))
    assert isinstance(message, RunDone)
    assert message.output == {"type": "final_result", "value": "r?"}
    assert (message.stdout, message.seq) == ("p?", 4)
    # The same when the output is an object (the runtime could not encode it).
    done["output"] = {"type": "error", "message": "m\udcff"}
    message = parse_worker_message(p.encode_done(done)[4:])
    assert isinstance(message, RunDone) and message.output == {"type": "error", "message": "m?"}
    crash: p.CrashFrame = {"op": p.Op.CRASH, "message": "boom \ud800"}
    assert json.loads(p.encode(crash, replace=True)[4:])["message"] == "boom ?"


def test_the_hand_built_frames_are_the_generic_encoders() -> None:
    source = 'print("é ☃ \\n \\u2028", {1: [2]})\n'
    generic: p.RunFrame = {"op": p.Op.RUN, "seq": 7, "source": source}
    assert p.encode_run(source, 7) == p.encode(generic)
    fields: dict[str, Any] = {"stdout": "hi", "error_code": None, "seq": 3, "cpu_s": 0.5}
    output = {"type": "observation", "value": ["é", 1]}
    as_object: p.DoneFrame = {"op": p.Op.DONE, "output": output, **fields}  # type: ignore[typeddict-item]
    as_text: p.DoneFrame = {**as_object, "output": json.dumps(output, ensure_ascii=False)}
    assert json.loads(p.encode_done(as_text)[4:]) == json.loads(p.encode_done(as_object)[4:])
    assert json.loads(p.encode_done(as_text)[4:]) == json.loads(p.encode(as_object)[4:])


@pytest.mark.parametrize(
    "payload",
    [
        b'{"op":"crash","message":"\\ud800"}',  # a lone surrogate, escaped
        b'{"op":"crash","message":"\xff"}',  # not UTF-8
        b'{"op":"crash","message":"x"',  # truncated
        b'["op", "hello"]',  # not an object
        b'{"op":"explode"}',  # no such op
        b'{"op":"run","seq":1,"source":""}',  # a host op
        b'{"op":"hello","pid":"many","confinement":{}}',  # a field of the wrong type
        b'{"op":"done","output":{},"error_code":"exploded"}',  # no such error code
    ],
)
def test_the_host_refuses_malformed_frames(payload: bytes) -> None:
    with pytest.raises(ValueError):
        parse_worker_message(payload)


def test_every_worker_frame_the_worker_builds_parses_on_the_host() -> None:
    hello: p.HelloFrame = {"op": p.Op.HELLO, "pid": 12, "confinement": {"seccomp": "active"}}
    call: p.CallFrame = {"op": p.Op.CALL, "id": 2, "name": "t", "args": [1], "concurrent": True}
    assert isinstance(parse_worker_message(read_back(p.encode(hello))), Hello)
    parsed = parse_worker_message(read_back(p.encode(call)))
    assert isinstance(parsed, Call) and (parsed.id, parsed.concurrent, parsed.keywords) == (
        2,
        True,
        {},
    )
    del call["id"]  # a call without its id is refused
    with pytest.raises(ValueError, match="id"):
        parse_worker_message(p.encode(call)[4:])


def test_a_frame_above_the_cap_is_refused_before_it_is_read() -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(struct.pack(">I", 2048) + b"{")
        reader = p.FrameReader(right, max_frame=1024)
        with pytest.raises(p.FrameTooLarge, match="2048 bytes exceeds 1024"):
            reader.read_frame()
        left.close()
        with pytest.raises(p.ChannelClosed):
            p.FrameReader(right, max_frame=1024).read_frame()


# -- error codes ------------------------------------------------------------------------
def test_the_wire_error_codes_are_the_public_error_codes() -> None:
    assert {code.value for code in ErrorCode} == p.ERROR_CODES
    constants = {value for name, value in vars(p.Code).items() if name.isupper()}
    assert constants == p.ERROR_CODES
    assert typing.get_type_hints(RunDone)["error_code"] == ErrorCode | None


def test_no_error_code_is_spelled_in_the_worker() -> None:
    found = []
    for path in sorted((ROOT / "worker").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            # asyncio.timeout, a member of the script's asyncio, is not an error code.
            allowed = (path.name, getattr(node, "value", None)) == ("script_asyncio.py", "timeout")
            if isinstance(node, ast.Constant) and node.value in p.ERROR_CODES and not allowed:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value}")
    assert found == []


def test_the_protocol_imports_only_the_standard_library() -> None:
    code = (
        "import sys; before = set(sys.modules); import sandbox.protocol; "
        "print(sorted(m for m in set(sys.modules) - before "
        "if m.split('.')[0] not in sys.stdlib_module_names))"
    )
    root = str(ROOT.parent)
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {root!r}); {code}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert out.strip() == "['sandbox', 'sandbox.protocol']"
