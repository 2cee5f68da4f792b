"""The host↔worker contract: ops, frame shapes, framing, error codes, reserved names.

Two channels cross the process boundary. A worker and its session talk over a stream
socket in frames: a 4-byte big-endian length, then UTF-8 JSON. The host and the zygote
(the fork server) exchange JSON datagrams on a SOCK_SEQPACKET socket. Every message is
a JSON object whose ``op`` names one of :class:`Op`; its shape is the ``TypedDict`` of
that op below. The types cost nothing at run time: the worker never validates what
the host sends (the host is trusted), and the host validates everything a worker sends
with pydantic (``sandbox/host/frames.py``, checked against these shapes by a test).

Encoding differs on purpose by side. The host encodes strictly: text that is not
valid Unicode (a lone surrogate) is refused with :class:`UnencodableText` before
anything is sent, so nothing the user gave is silently changed. The worker encodes
what a finished script printed or returned with ``replace``: a lone surrogate the
script built becomes ``?``, as losing one character beats losing the run. Readers
refuse frames above a size cap, so a misbehaving worker cannot make the host buffer
without bound.

Standard library only (the worker imports it).
"""

# No ``from __future__ import annotations``: the TypedDicts' required and optional keys
# are then known at run time (a test compares them with the host's models).
import json
import keyword
import socket
import struct
from typing import Any, Final, Literal, NotRequired, TypedDict, get_args

_HEADER = struct.Struct(">I")


class Op:
    """Every kind of message on the two channels: the ``op`` of each frame.

    Plain strings, not an enum: the worker and the session compare them on every
    frame, and an enum member's lookup and comparison cost about 0.1 µs each (Python
    3.11), a measurable share of a warm run's round trip.
    """

    # host → worker
    INIT: Final = "init"
    RUN: Final = "run"
    RESULT: Final = "result"
    SNAPSHOT: Final = "snapshot"
    RESTORE: Final = "restore"
    # worker → host
    HELLO: Final = "hello"
    CALL: Final = "call"
    DONE: Final = "done"
    CRASH: Final = "crash"
    STATE: Final = "state"
    RESTORED: Final = "restored"
    # host → zygote
    FORK: Final = "fork"
    SHUTDOWN: Final = "shutdown"
    # zygote → host
    READY: Final = "ready"
    FAILED: Final = "failed"
    FORKED: Final = "forked"
    EXITED: Final = "exited"


#: Every op (the frame shapes below spell each once more, as a ``Literal``: a test and
#: mypy check that the two agree).
OPS: Final[frozenset[str]] = frozenset(
    value for name, value in vars(Op).items() if name.isupper()
)


# -- error codes ------------------------------------------------------------------------
#: Why a run failed, as the wire spells it (``sandbox.ErrorCode`` documents each one).
ErrorCodeName = Literal[
    "syntax_error",
    "policy_violation",
    "runtime_error",
    "timeout",
    "cpu_limit",
    "memory_limit",
    "output_limit",
    "tool_call_limit",
    "cancelled",
    "worker_crashed",
]
ERROR_CODES: Final[frozenset[str]] = frozenset(get_args(ErrorCodeName))


class Code:
    """The error codes as constants, for the side that reports them."""

    SYNTAX_ERROR: Final = "syntax_error"
    POLICY_VIOLATION: Final = "policy_violation"
    RUNTIME_ERROR: Final = "runtime_error"
    CPU_LIMIT: Final = "cpu_limit"
    MEMORY_LIMIT: Final = "memory_limit"
    OUTPUT_LIMIT: Final = "output_limit"
    TOOL_CALL_LIMIT: Final = "tool_call_limit"
    # Decided by the host alone: it stopped the worker, or lost it.
    TIMEOUT: Final = "timeout"
    CANCELLED: Final = "cancelled"
    WORKER_CRASHED: Final = "worker_crashed"


# -- host → worker ----------------------------------------------------------------------
class InitFrame(TypedDict):
    """The session's tool names, bound as functions in the script's globals."""

    op: Literal["init"]
    tools: list[str]


class RunFrame(TypedDict):
    """Run one script; ``seq`` comes back in its ``done``."""

    op: Literal["run"]
    seq: int
    source: str


class ToolValue(TypedDict):
    """The answer to call ``id``: the tool returned ``value`` (JSON). Answers may come
    in any order; whoever builds one before its call's id is known puts 0 there."""

    op: Literal["result"]
    id: int
    ok: Literal[True]
    value: Any


class ToolFailure(TypedDict):
    """The answer to call ``id``: the tool failed; the worker raises ``error_type`` in
    the script (a builtin exception by that name, else ``ToolError``)."""

    op: Literal["result"]
    id: int
    ok: Literal[False]
    error_type: str
    message: str


ResultFrame = ToolValue | ToolFailure


class SnapshotRequest(TypedDict):
    """Encode the script's state (``sandbox/worker/snapshot.py``); answered by ``state``."""

    op: Literal["snapshot"]


class RestoreRequest(TypedDict):
    """Rebuild the state of a snapshot; the next frame, of ``size`` bytes, is the
    snapshot itself (a JSON object). Answered by ``restored``."""

    op: Literal["restore"]
    size: int


HostFrame = InitFrame | RunFrame | ResultFrame | SnapshotRequest | RestoreRequest


# -- worker → host (fields the host tolerates missing are NotRequired) -------------------
class HelloFrame(TypedDict):
    """A new worker is confined and ready; ``confinement`` maps mechanism → state."""

    op: Literal["hello"]
    pid: int
    confinement: dict[str, str]
    process_cpu_s: NotRequired[float]
    #: The worker's descriptor of each writable mount's private upper layer, in mount
    #: order (the host opens them through /proc before any script runs).
    layers: NotRequired[list[int]]


class CallFrame(TypedDict):
    """The script called a host tool (arguments are JSON values). Ids count up from 1
    in each run (the worker's channel numbers each call as it sends it); ``concurrent``
    calls, made in the script's event loop, may be in flight together."""

    op: Literal["call"]
    id: int
    concurrent: NotRequired[bool]
    name: str
    args: NotRequired[list[Any]]
    keywords: NotRequired[dict[str, Any]]


class DoneFrame(TypedDict):
    """One run finished. ``output`` is the script's output, an object tagged by
    ``type``; inside the worker, before :func:`encode_done`, it may be that object
    already encoded as JSON text. ``images``: what the script displayed, each
    ``{"media_type", "data"}`` (base64)."""

    op: Literal["done"]
    output: dict[str, Any] | str
    stdout: NotRequired[str]
    stdout_truncated: NotRequired[bool]
    error_code: NotRequired[ErrorCodeName | None]
    cpu_s: NotRequired[float]
    peak_memory_bytes: NotRequired[int]
    process_cpu_s: NotRequired[float]
    seq: NotRequired[int | None]
    images: NotRequired[list[dict[str, str]]]


class CrashFrame(TypedDict):
    """The worker hit an internal error and is exiting."""

    op: Literal["crash"]
    message: NotRequired[str]


class StateFrame(TypedDict):
    """The answer to ``snapshot``: the next frame, of ``size`` bytes, is the snapshot;
    with ``error``, no frame follows (the state could not be encoded at all)."""

    op: Literal["state"]
    size: int
    error: NotRequired[str]
    process_cpu_s: NotRequired[float]


class RestoredFrame(TypedDict):
    """The answer to ``restore``: the variables rebuilt, those that could not be (each
    ``{"name", "reason"}``); ``error`` when the snapshot was refused as a whole."""

    op: Literal["restored"]
    variables: list[str]
    lost: list[dict[str, str]]
    error: NotRequired[str]
    process_cpu_s: NotRequired[float]


WorkerFrame = HelloFrame | CallFrame | DoneFrame | CrashFrame | StateFrame | RestoredFrame

#: What a snapshot's JSON names itself (``"format"``), and the largest one either side
#: sends or reads: the worker's memory limit bounds what it can hold anyway.
SNAPSHOT_FORMAT: Final = "codeact-session-snapshot"
SNAPSHOT_MAX_BYTES: Final = 64 << 20


# -- host ↔ zygote datagrams (the first datagram is the worker configuration) ----------
class WorkerConfig(TypedDict):
    """What the zygote and its workers need (``SandboxPolicy.worker_config``); the
    NotRequired keys have defaults on the worker side."""

    limits: dict[str, Any]
    builtins: list[str]
    modules: list[str]
    max_request_bytes: int
    extra_modules: NotRequired[list[str]]
    deny: NotRequired[dict[str, list[str]]]
    policy_deny: NotRequired[dict[str, list[str]]]
    layers: NotRequired[dict[str, bool]]
    mounts: NotRequired[list[dict[str, Any]]]
    private_writes: NotRequired[bool]
    #: How: "overlay" (the default; staged copies where there is none) or "copy".
    private_via: NotRequired[str]


class ForkRequest(TypedDict):
    """Fork one worker on the attached channel descriptor (SCM_RIGHTS)."""

    op: Literal["fork"]
    id: int


class ShutdownRequest(TypedDict):
    """Kill every worker and exit."""

    op: Literal["shutdown"]


class ReadyNotice(TypedDict):
    """The zygote has imported everything and entered its root; it takes forks now."""

    op: Literal["ready"]
    pid: int
    vm_size: int
    helpers: list[int]


class FailedNotice(TypedDict):
    """The zygote could not start; ``error`` is its traceback."""

    op: Literal["failed"]
    error: str


class ForkedNotice(TypedDict):
    """The worker of fork request ``id`` runs as ``pid``."""

    op: Literal["forked"]
    id: int
    pid: int


class ExitedNotice(TypedDict):
    """Worker ``pid`` ended: by ``signal``, or with exit ``code``, after ``cpu_s``."""

    op: Literal["exited"]
    pid: int
    cpu_s: float
    signal: int | None
    code: int | None


ZygoteRequest = ForkRequest | ShutdownRequest
ZygoteNotice = ReadyNotice | FailedNotice | ForkedNotice | ExitedNotice


def datagram(message: ZygoteRequest | ZygoteNotice | WorkerConfig) -> bytes:
    """One control datagram (ASCII JSON: the zygote's tracebacks may hold anything)."""
    return json.dumps(message).encode()


# -- reserved names ---------------------------------------------------------------------
#: The result helpers every script has: ending a script is always the sandbox's own.
HELPERS: Final = ("final_result", "observation", "error", "transfer_to_agent")
#: Names no tool, agent or sub-agent may take: the helpers, and the names RestrictedPython
#: reserves (a script cannot call ``printed``, ``builtins`` or ``breakpoint``; ``print``
#: is the sandbox's capturing print, which a tool would shadow).
RESERVED_NAMES: Final = frozenset(HELPERS) | {"print", "printed", "builtins", "breakpoint"}


def shows_images(modules: list[str]) -> bool:
    """Whether a policy allowing ``modules`` gives its scripts ``display(obj)``, and a
    ``plt.show()`` that attaches the figures to the run (``worker/display.py``)."""
    return any(m == "*" or m.split(".")[0] in ("matplotlib", "PIL") for m in modules)


def name_refusal(kind: str, name: object) -> str | None:
    """Why ``name`` cannot name a ``kind`` (tool, agent) a script calls, or None."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        return f"{kind} name {name!r} is not a Python identifier"
    if name.startswith("_"):
        return f"{kind} name {name!r} may not start with '_'"
    if name in RESERVED_NAMES:
        return f"{kind} name {name!r} is reserved"
    return None


# -- framing ----------------------------------------------------------------------------
class ChannelClosed(EOFError):
    """The other end closed the channel (or died)."""


class FrameTooLarge(ValueError):
    """A frame announced a size above the reader's cap."""


class UnencodableText(ValueError):
    """A message holds text that is not valid Unicode (a lone surrogate such as
    ``"\\udcff"``), which strict UTF-8 cannot carry."""


#: One encoder for every frame: ``json.dumps`` with options builds a new one per call,
#: a measurable share of a small frame's cost.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dumps = _ENCODER.encode
#: Compact JSON text of a value, as frames carry it (``"\u2028"`` and the like as is).
json_text = _ENCODER.encode


def frame_text(text: str, *, replace: bool = False) -> bytes:
    """One frame carrying ``text`` (already JSON) as UTF-8: the only frame encoder.

    A lone surrogate raises :class:`UnencodableText` (the host's way), or becomes
    ``?`` with ``replace`` (the worker's, for what a finished script printed or
    returned, and for its crash report).
    """
    try:
        payload = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        if not replace:
            raise UnencodableText(describe_unencodable(text, exc)) from None
        payload = text.encode("utf-8", "replace")
    return _HEADER.pack(len(payload)) + payload


def describe_unencodable(text: str, exc: UnicodeEncodeError) -> str:
    """Where the first lone surrogate in ``text`` is, in words."""
    line = text.count("\n", 0, exc.start) + 1
    column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
    char = ascii(text[exc.start])[1:-1]
    return (
        f"the text holds a lone surrogate {char} at line {line}, column {column}, which "
        "is not valid Unicode and cannot be sent as UTF-8"
    )


def encode(message: HostFrame | WorkerFrame, *, replace: bool = False) -> bytes:
    """One frame carrying ``message`` as JSON (see :func:`frame_text`)."""
    return frame_text(_dumps(message), replace=replace)


def encode_run(source: str, seq: int) -> bytes:
    """The frame of a ``run`` request (the hot path: only the source needs encoding)."""
    text = _ENCODER.encode(source)
    return frame_text(f'{{"op":"{Op.RUN}","seq":{int(seq)},"source":{text}}}')


def encode_done(done: DoneFrame) -> bytes:
    """The worker's ``done`` frame, embedding an output already encoded as JSON text as
    is; a lone surrogate the script built (e.g. ``"\\ud800"``) becomes ``?``."""
    output = done["output"]
    if not isinstance(output, str):
        return encode(done, replace=True)
    done["output"] = ""  # a placeholder, replaced by the encoded output as is
    text = _dumps(done)
    done["output"] = output
    cut = text.index('"output":""') + 9
    return frame_text(f"{text[:cut]}{output}{text[cut + 2 :]}", replace=True)


def host_frame_cap(limits: dict[str, Any]) -> int:
    """The largest frame the host reads from a worker: a ``done`` frame carries at most
    the result, the images the script showed (within ``result_bytes`` too) and the
    printed text, each capped by the policy."""
    return int(limits["result_bytes"]) * 3 + (1 << 20)


#: Calls in flight at once, whatever the policy allows per run: each sync one holds a
#: host thread for its duration (the sandbox's ``tool_threads`` budget is shared by
#: every session).
MAX_IN_FLIGHT = 16


def in_flight_cap(limits: dict[str, Any]) -> int:
    """How many tool calls of one run may be in flight at once (both ends agree)."""
    return max(1, min(int(limits["tool_calls"]), MAX_IN_FLIGHT))


def check_text(text: str) -> str | None:
    """None if ``text`` can be sent, else why not."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return describe_unencodable(text, exc)
    return None


class FrameReader:
    """Reads whole frames from a blocking socket."""

    def __init__(self, sock: socket.socket, max_frame: int) -> None:
        self._sock = sock
        self._buffer = bytearray()
        self.max_frame = max_frame

    def pending(self) -> bool:
        """True when a whole frame is already buffered."""
        if len(self._buffer) < 4:
            return False
        size: int = _HEADER.unpack_from(self._buffer)[0]
        return len(self._buffer) >= 4 + size

    def next_frame(self) -> bytes | None:
        """The next whole frame if one is buffered, else None (never blocks)."""
        if len(self._buffer) < 4:
            return None
        size: int = _HEADER.unpack_from(self._buffer)[0]
        if size > self.max_frame:
            raise FrameTooLarge(f"frame of {size} bytes exceeds {self.max_frame}")
        if len(self._buffer) < 4 + size:
            return None
        payload = bytes(self._buffer[4 : 4 + size])
        del self._buffer[: 4 + size]
        return payload

    def fill(self, flags: int = 0) -> bool:
        """One ``recv`` into the buffer (blocks only if nothing is readable, unless
        ``flags`` holds ``MSG_DONTWAIT``); False if there was nothing to read."""
        try:
            chunk = self._sock.recv(65536, flags)
        except BlockingIOError:
            return False
        if not chunk:
            raise ChannelClosed("channel closed")
        self._buffer += chunk
        return True

    def read_frame(self) -> bytes:
        """Block until one frame has arrived; return its payload."""
        while True:
            frame = self.next_frame()
            if frame is not None:
                return frame
            self.fill()

    def read_json(self) -> Any:
        """Read one frame and decode it as JSON (the worker's reader: the host is
        trusted; the host parses a worker's frames with ``host/frames.py`` instead)."""
        return json.loads(self.read_frame())
