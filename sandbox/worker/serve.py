"""What runs inside a worker: confine, say hello, then serve the session's scripts.

The worker speaks the framed JSON protocol of ``sandbox/protocol.py`` on one socket.
Requests: ``init`` (tool names), ``run`` (source), ``snapshot`` and ``restore`` (the
session's state, ``snapshot.py`` and ``restore.py``). Replies and calls: ``hello``
(confinement report), ``call`` (a tool call with its ``id``, answered by the host with
a ``result`` bearing the same id; see ``tool_channel.py``), ``done`` (one run's output),
``state`` and ``restored``, ``crash`` (why it is exiting).

Worker side: standard library only.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any, NoReturn, cast

from sandbox.protocol import (
    SNAPSHOT_MAX_BYTES,
    CallFrame,
    ChannelClosed,
    FrameReader,
    InitFrame,
    Op,
    RestoredFrame,
    RestoreRequest,
    ResultFrame,
    RunFrame,
    StateFrame,
    UnencodableText,
    WorkerConfig,
    encode,
    encode_done,
    frame_text,
    host_frame_cap,
    in_flight_cap,
    shows_images,
)
from sandbox.worker import display, restore, snapshot
from sandbox.worker.confine.steps import confine, private_layers
from sandbox.worker.language import audit
from sandbox.worker.language.callables import builtin
from sandbox.worker.language.files import Mounts, make_open
from sandbox.worker.language.module_proxy import ModuleTable, make_import
from sandbox.worker.language.modules import ModuleProxy, reseed_random
from sandbox.worker.runtime import ScriptRuntime, install_cpu_handlers
from sandbox.worker.tool_channel import ToolChannel

#: Recursion frames reserved for the sandbox's own code below the script.
RECURSION_MARGIN = 40


def _call_frame(request: CallFrame, cap: int) -> bytes:
    """The frame of a tool call; raises ValueError (in the script) when it cannot go."""
    name = request["name"]
    try:
        frame = encode(request)
    except UnencodableText as exc:
        raise ValueError(f"{name}(): cannot send the arguments: {exc}") from None
    if len(frame) > cap:
        raise ValueError(
            f"{name}(): the arguments are {len(frame)} bytes as JSON; a tool call may "
            f"carry at most {cap}"
        )
    return frame


def _snapshot(runtime: ScriptRuntime, language: bool) -> bytes:
    """The ``state`` frame and the snapshot's own frame (or the reason there is none)."""
    header: StateFrame
    try:
        data = snapshot.take(runtime, language)
        if len(data) > SNAPSHOT_MAX_BYTES:
            raise ValueError(f"the state is {len(data)} bytes; a snapshot holds at most "
                             f"{SNAPSHOT_MAX_BYTES}")
    except (Exception, MemoryError) as exc:
        detail = f"{type(exc).__name__}: {exc}"[:2000]
        header = {"op": Op.STATE, "size": 0, "error": detail, "process_cpu_s": time.thread_time()}
        return encode(header, replace=True)
    header = {"op": Op.STATE, "size": len(data), "process_cpu_s": time.thread_time()}
    return encode(header) + frame_text(data.decode("utf-8"), replace=True)


def _restore(runtime: ScriptRuntime, reader: FrameReader, size: int) -> RestoredFrame:
    """Read the snapshot that follows a ``restore`` request and rebuild it."""
    limit, reader.max_frame = reader.max_frame, max(reader.max_frame, size)
    try:
        data = reader.read_frame()
    finally:
        reader.max_frame = limit
    reply: RestoredFrame = {"op": Op.RESTORED, "variables": [], "lost": []}
    try:
        reply["variables"], reply["lost"] = restore.restore(runtime, data)
    except restore.SnapshotRefused as exc:
        reply["error"] = str(exc)
    except (Exception, MemoryError) as exc:
        reply["error"] = f"the snapshot could not be restored: {type(exc).__name__}: {exc}"[:2000]
    reply["process_cpu_s"] = time.thread_time()
    return reply


def _unconnected(request: CallFrame) -> ResultFrame:
    raise ChannelClosed("the worker has no channel yet")


def prepare_runtime(
    config: WorkerConfig, proxies: dict[str, ModuleProxy], mounts: Mounts
) -> ScriptRuntime:
    """The script runtime every worker starts from, built once in the zygote before it
    forks, its tool channel bound in each worker (:meth:`ScriptRuntime.connect`): its
    objects are then shared with every worker, copy-on-write, instead of each worker
    building and dirtying its own (measured: 0.12 ms and 0.65 MiB a worker)."""
    layers = config.get("layers", {"language": True, "os": True})
    options: dict[str, Any] = {
        "language": layers["language"],
        "open_": make_open(mounts) if mounts else None,
    }
    table = proxies if isinstance(proxies, ModuleTable) else ModuleTable(proxies, (), {})
    return ScriptRuntime(
        config["limits"], config["builtins"], make_import(table), _unconnected, **options
    )


def serve(channel_fd: int, config: WorkerConfig, runtime: ScriptRuntime) -> NoReturn:
    """Run the worker's life on ``channel_fd``; never returns."""
    try:
        limits = config["limits"]
        layers = config.get("layers", {"language": True, "os": True})
        report = confine(
            channel_fd,
            limits,
            os_layer=layers["os"],
            mounts=config.get("mounts", []),
            private_writes=bool(config.get("private_writes")),
            private_via=str(config.get("private_via", "overlay")),
        )
        report["language"] = "active" if layers["language"] else "off"
        reseed_random()
        sock = socket.socket(fileno=channel_fd)
        if layers["language"]:
            # Library code's own opens, sockets and processes (audit.py); after the
            # channel's socket object exists, as creating one is refused from here on.
            audit.install(config.get("mounts", []))
        reader = FrameReader(sock, max_frame=int(config["max_request_bytes"]))
        call_cap = host_frame_cap(limits)

        channel = ToolChannel(
            sock, reader, lambda request: _call_frame(request, call_cap), in_flight_cap(limits)
        )
        # No throwaway warm-up run here: it would copy the pages a run touches from the
        # zygote ahead of time, but costs every worker those copies (measured: fresh
        # sessions per second fell by a sixth, the first run got only 5% faster).
        runtime.connect(channel.call, channel)
        install_cpu_handlers(runtime)
        display.configure(limits)
        if shows_images([*config["modules"], *config.get("extra_modules", [])]):
            runtime.globals["display"] = builtin(display.display, "display")
            runtime.installed.add("display")
        sys.setrecursionlimit(int(limits["recursion_depth"]) + RECURSION_MARGIN)
        sock.sendall(
            encode(
                {
                    "op": Op.HELLO,
                    "pid": os.getpid(),
                    "confinement": report,
                    "process_cpu_s": time.thread_time(),  # one thread: see runtime.run
                    "layers": private_layers(),
                }
            )
        )
        while True:
            message = reader.read_json()
            op = message.get("op")
            if op == Op.RUN:
                run = cast(RunFrame, message)
                channel.new_run()
                done = runtime.run(str(run["source"]))
                channel.drain()  # calls the script left in flight: answered before done
                done["seq"] = run.get("seq")
                images = display.take()
                if images:
                    done["images"] = images
                sock.sendall(encode_done(done))
                if runtime.must_end:
                    break  # a thread of the run's is still running: end with it
            elif op == Op.INIT:
                runtime.add_tools(list(cast(InitFrame, message)["tools"]))
            elif op == Op.SNAPSHOT:
                sock.sendall(_snapshot(runtime, bool(layers["language"])))
            elif op == Op.RESTORE:
                size = int(cast(RestoreRequest, message)["size"])
                sock.sendall(encode(_restore(runtime, reader, size)))
    except (ChannelClosed, OSError):
        pass
    except BaseException as exc:
        # Tell the host why, if the channel still works; it reports a crashed worker.
        try:
            detail = f"{type(exc).__name__}: {exc}"[:2000]
            os.write(channel_fd, encode({"op": Op.CRASH, "message": detail}, replace=True))
        except BaseException:
            pass
    finally:
        os._exit(0)
