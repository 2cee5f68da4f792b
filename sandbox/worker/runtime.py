"""One session's script state inside the worker: globals, helpers, print capture, results.

A :class:`ScriptRuntime` lives as long as its worker. Each :meth:`ScriptRuntime.run`
compiles one script, executes it in the session's globals (so variables persist across
runs), and returns the fields of the ``done`` message: the output as a tagged JSON
dict, what was printed, and the error code if the run failed.

Worker side: standard library only.
"""

from __future__ import annotations

import _thread
import builtins
import gc
import inspect
import resource
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sandbox.limits_text import explain
from sandbox.protocol import (
    HELPERS,
    CallFrame,
    Code,
    DoneFrame,
    ErrorCodeName,
    Op,
    ResultFrame,
    json_text,
    name_refusal,
)
from sandbox.worker.language.callables import builtin
from sandbox.worker.language.compiler import (
    GUARD_NAMES,
    LAST_EXPR,
    CompileFailure,
    compile_plain,
    compile_script,
)
from sandbox.worker.language.control import (
    LimitExceeded,
    PolicyRefusal,
    ScriptExit,
    begin_run,
    issue_limit,
)
from sandbox.worker.language.evaluate import Evaluator
from sandbox.worker.language.guards import (
    SCRIPT_MODULE,
    build_class,
    builtin_catalog,
    generated_bindings,
)
from sandbox.worker.language.jsonsafe import to_json
from sandbox.worker.language.membrane import register_namespace
from sandbox.worker.language.memory_errors import raised_by_script
from sandbox.worker.language.names import HELD, HELD_IN_COMPREHENSION, ITEM
from sandbox.worker.language.script_asyncio import attach_channel, run_top_level
from sandbox.worker.language.sysproxy import bind as bind_streams
from sandbox.worker.language.sysproxy import emit, reset_redirects, swapped_streams
from sandbox.worker.tool_stubs import tool_stub
from sandbox.worker.tracebacks import script_traceback

if TYPE_CHECKING:
    from sandbox.worker.tool_channel import ToolChannel

#: After the CPU limit, the script is interrupted again this often until it ends.
CPU_REPEAT_S = 0.05
_THREAD_LEFT = (
    "the script left a thread running (library code started it); nothing of a run may "
    "outlive it, so the sandbox worker was ended: variables from earlier runs are lost"
)


def _described(exc: BaseException) -> str:
    """``exc`` in words without running a script's ``__str__``: its one text argument,
    else its class's name."""
    texts = [arg for arg in BaseException.__dict__["args"].__get__(exc) if type(arg) is str]
    return texts[0] if len(texts) == 1 else type(exc).__name__


class ScriptRuntime:
    """The globals and per-run bookkeeping of one session."""

    def __init__(
        self,
        limits: dict[str, Any],
        builtin_names: list[str],
        import_: Callable[..., Any],
        call_host: Callable[[CallFrame], ResultFrame],
        *,
        language: bool = True,
        open_: Callable[..., Any] | None = None,
        channel: ToolChannel | None = None,
    ) -> None:
        self.limits = limits
        self._call_host = call_host
        gc.disable()  # collected only while a script runs (``run``)
        # With a channel, calls made inside the script's event loop go out at once and
        # are awaited together; without one they are answered one at a time.
        self._channel = channel
        attach_channel(channel)
        self._language = language
        if language:
            catalog = builtin_catalog()
            script_builtins = {name: catalog[name] for name in builtin_names}
            script_builtins.update(__build_class__=build_class, __import__=import_)
            if open_ is not None:
                script_builtins["open"] = open_
        else:
            # The language layer is switched off: plain Python with the real builtins.
            script_builtins = dict(vars(builtins))
        script_builtins["print"] = builtin(self._print, "print")
        guards = generated_bindings(_identity)
        if language:
            evaluator = Evaluator(
                tuple(guards[name] for name in GUARD_NAMES),
                script_builtins,
                self._register_string,
                int(limits.get("source_bytes", 100_000)),
            )
            for name, function in (("eval", evaluator.eval), ("exec", evaluator.exec)):
                if name in script_builtins:
                    script_builtins[name] = builtin(function, name)
        self.globals: dict[str, Any] = {
            "__builtins__": script_builtins,
            "__name__": SCRIPT_MODULE,
            **guards,
            LAST_EXPR: self._last_expr,
        }
        # Where the compiled code finds its guards: never a value a script may hold.
        register_namespace(self.globals)
        register_namespace(script_builtins)
        # The protocol's helper names, each bound to its implementation (in order).
        helpers = (self._final_result, self._observation, self._error, self._transfer)
        for name, helper in zip(HELPERS, helpers, strict=True):
            self.globals[name] = builtin(helper, name)
        if language:
            evaluator.script_globals = self.globals
        self._sources: dict[str, list[str]] = {}
        self._compiled: dict[str, tuple[str, Any]] = {}
        #: Threads of the process besides its main one (none in a worker).
        self._threads_at_start = _thread._count()
        #: Set when the worker must end after reporting the current run.
        self.must_end = False
        bind_streams(self._capture, int(limits.get("recursion_depth", 200)))
        #: The names the sandbox bound in the globals (helpers, tools): not the script's
        #: own state, which a snapshot keeps.
        self.installed: set[str] = set(self.globals)
        self._reset()

    def connect(self, call_host: Callable[[CallFrame], ResultFrame], channel: ToolChannel) -> None:
        """Bind the worker's tool channel, for a runtime built before its worker had one
        (the zygote builds one runtime that every worker it forks starts from)."""
        self._call_host = call_host
        self._channel = channel
        attach_channel(channel)

    def _register_string(self, text: str) -> str:
        """A file name for a string given to eval/exec, its lines kept for tracebacks."""
        filename = f"<script-string#{len(self._sources) + 1}>"
        if len(self._sources) < 4096:
            self._sources[filename] = text.splitlines()
        return filename

    # -- per-run state -------------------------------------------------------------
    def _reset(self) -> None:
        self._printed: list[str] = []
        self._printed_bytes = 0
        self._stdout_truncated = False
        self._output: dict[str, Any] | None = None
        self._last_value: Any = None
        self._has_last_value = False
        self._tool_calls = 0
        self._in_script = False
        self._cpu_exceeded = False

    def script_lines(self, filename: str) -> list[str] | None:
        """The lines of the script (or ``exec``'d string) compiled as ``filename``."""
        return self._sources.get(filename)

    def script_files(self) -> list[str]:
        """The file names of the scripts compiled so far, in the order they first ran."""
        return list(self._sources)

    def add_tools(self, names: list[str]) -> None:
        """Bind each host tool as a plain function in the script's globals."""
        self.installed.update(names)
        for name in names:
            problem = name_refusal("tool", name)
            if problem is not None:
                raise ValueError(problem)  # the host refuses these first
            self.globals[name] = tool_stub(
                name, self._admit_tool_call, self._call_host, self._channel
            )

    # -- helpers the script calls --------------------------------------------------
    def _finish(self, output: dict[str, Any]) -> None:
        if self._output is None:
            self._output = output
        raise ScriptExit()

    def _final_result(self, value: Any) -> None:
        """End the script; ``value`` is the task's final answer."""
        self._finish({"type": "final_result", "value": value})

    def _observation(self, value: Any) -> None:
        """End the script; ``value`` is shown to the model as the step's result."""
        self._finish({"type": "observation", "value": value})

    def _error(self, message: Any) -> None:
        """End the script, reporting an error in words."""
        self._finish({"type": "error", "message": str(message)})

    def _transfer(self, agent_name: Any) -> None:
        """End the script, handing the run over to another agent."""
        if not isinstance(agent_name, str):
            raise TypeError("transfer_to_agent() takes the agent's name as a str")
        self._finish({"type": "transfer_to_agent", "agent_name": agent_name})

    def _last_expr(self, value: Any) -> Any:
        self._last_value, self._has_last_value = value, True
        return value

    def _print(
        self, *args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False
    ) -> None:
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be str")
        # Exact copies: a str subclass's ``join`` or ``__add__`` would decide the text
        # (and so the size the output limit counts).
        sep, end = str.__str__(sep), str.__str__(end)
        text = sep.join([str(arg) for arg in args]) + end
        if file is None:
            emit(text)
        else:
            file.write(text)  # the script's own object, or sys.stdout/stderr

    def _capture(self, text: str) -> None:
        """Add ``text`` (an exact str) to the run's output, within the output limit."""
        if self._stdout_truncated:
            return
        size = len(text.encode("utf-8", "surrogatepass"))
        room = self.limits["output_bytes"] - self._printed_bytes
        self._printed.append(text if size <= room else _cut_bytes(text, room))
        self._printed_bytes += size
        if self._printed_bytes > self.limits["output_bytes"]:
            self._stdout_truncated = True
            raise self._limit(Code.OUTPUT_LIMIT)

    def _limit(self, code: ErrorCodeName) -> LimitExceeded:
        """The exception that stops the script at the limit ``code``."""
        return issue_limit(code, explain(code, self.limits))

    def _admit_tool_call(self) -> None:
        """Count one more tool call; raise if the run has ended or is at its limit."""
        if self._output is not None:
            raise ScriptExit()
        self._tool_calls += 1
        if self._tool_calls > self.limits["tool_calls"]:
            raise self._limit(Code.TOOL_CALL_LIMIT)

    # -- running a script ----------------------------------------------------------
    def on_cpu_signal(self, signum: int, frame: Any) -> None:
        """SIGPROF/SIGXCPU handler: stop the script if one is running.

        A script can swallow one exception (``finally: return``, an ``__exit__`` that
        returns True), so the timer is re-armed to interrupt it again, and the run is
        reported as over its CPU limit however it ends.
        """
        if not self._in_script:
            return
        self._cpu_exceeded = True
        if frame is not None and frame.f_code is _RUN_CODE:
            return  # between the script's end and our own bookkeeping: nothing to stop
        signal.setitimer(signal.ITIMER_PROF, CPU_REPEAT_S)
        raise self._limit(Code.CPU_LIMIT)

    def run(self, source: str) -> DoneFrame:
        """Compile and run one script; return the ``done`` message's fields."""
        self._reset()
        begin_run()
        # The thread clock, not the process clock: with CPU timers armed (RLIMIT_CPU,
        # ITIMER_PROF) the kernel serves the process clock from a sample that lags by up
        # to a tick, so short runs read as 0. The worker has one thread only.
        cpu_start = time.thread_time()
        error_code: ErrorCodeName | None = None
        cached = self._compiled.get(source)
        if cached is None:
            # One file name per distinct script, so tracebacks point at the right text.
            count = len(self._sources) + 1
            filename = "<script>" if count == 1 else f"<script#{count}>"
            compiled = (compile_script if self._language else compile_plain)(source, filename)
            if isinstance(compiled, CompileFailure):
                syntax = compiled.kind == "syntax"
                code: ErrorCodeName = Code.SYNTAX_ERROR if syntax else Code.POLICY_VIOLATION
                return self._done({"type": "error", "message": compiled.message}, code, cpu_start)
            self._sources[filename] = source.splitlines()
            if len(self._compiled) < 256:
                self._compiled[source] = (filename, compiled)
        else:
            filename, compiled = cached
        reset_redirects()
        signal.setitimer(signal.ITIMER_PROF, float(self.limits["cpu_soft_s"]))
        try:
            # The streams are swapped outside the interruptible part: the CPU signal
            # must never stop their restoring.
            with swapped_streams():
                self._in_script = True
                # The collector runs finalizers (a script's ``__del__``, a generator's
                # ``finally``): only here, under the run's limits, never between runs.
                gc.enable()
                try:
                    if compiled.co_flags & inspect.CO_COROUTINE:
                        run_top_level(eval(compiled, self.globals))
                    else:
                        exec(compiled, self.globals)
                finally:
                    try:
                        gc.collect()
                    finally:
                        gc.disable()
                        # Disarm before any of our own code runs: the CPU signal must
                        # only ever interrupt the script.
                        self._in_script = False
                        signal.setitimer(signal.ITIMER_PROF, 0)
        except ScriptExit:
            pass
        except LimitExceeded as exc:
            self._output, error_code = {"type": "error", "message": exc.message}, exc.code
        except MemoryError as exc:
            if raised_by_script(exc):  # not an allocation that failed
                self._output = {"type": "error", "message": self.format_exception(exc)}
                error_code = Code.RUNTIME_ERROR
            else:
                message = explain(Code.MEMORY_LIMIT, self.limits)
                self._output, error_code = {"type": "error", "message": message}, Code.MEMORY_LIMIT
        except SystemExit as exc:
            # ``raise SystemExit`` / ``SystemExit(0)`` ends the script as its end would.
            status = exc.code  # compared natively: a script's object never runs here
            if not (status is None or (type(status) in (int, bool) and status == 0)):
                self._output = {"type": "error", "message": self.format_exception(exc)}
                error_code = Code.RUNTIME_ERROR
        except BaseException as exc:
            self._output = {"type": "error", "message": self.format_exception(exc)}
            refused = isinstance(exc, PolicyRefusal)
            error_code = Code.POLICY_VIOLATION if refused else Code.RUNTIME_ERROR
        for generated in (HELD, HELD_IN_COMPREHENSION, ITEM):
            # A script kept in module form (``import *``) checks values in its globals:
            # nothing of the run stays there.
            self.globals.pop(generated, None)
        if _thread._count() > self._threads_at_start:
            # Library code started a thread for the script (an executor): nothing of a
            # run may outlive it, so the worker ends once this run is reported.
            self.must_end = True
            self._output = {"type": "error", "message": _THREAD_LEFT}
            error_code = Code.POLICY_VIOLATION
        elif self._cpu_exceeded and error_code != Code.CPU_LIMIT:
            # The script swallowed the interruption and went on: the limit still holds.
            self._output = {"type": "error", "message": explain(Code.CPU_LIMIT, self.limits)}
            error_code = Code.CPU_LIMIT
        elif self._stdout_truncated and error_code is None:
            # The script swallowed the output limit (a bare except) and went on.
            self._output = {"type": "error", "message": explain(Code.OUTPUT_LIMIT, self.limits)}
            error_code = Code.OUTPUT_LIMIT
        if self._output is None:
            last = self._last_value
            # Only native dict code: a script's dict subclass runs nothing here.
            if (
                self._has_last_value
                and issubclass(type(last), dict)
                and dict.__contains__(last, "type")
            ):
                self._output = dict.copy(last)
            else:
                self._output = {"type": "observation", "value": "".join(self._printed)}
        return self._done(self._output, error_code, cpu_start)

    def _done(
        self, output: dict[str, Any], error_code: ErrorCodeName | None, cpu_start: float
    ) -> DoneFrame:
        """The ``done`` fields; ``output`` is JSON text when it could be encoded (the
        worker embeds it in the frame as is), else a dict explaining why not."""
        value: dict[str, Any] | str
        try:
            encoded = json_text({key: to_json(item) for key, item in output.items()})
            if len(encoded) > self.limits["result_bytes"]:
                value = {"type": "error", "message": explain("result_limit", self.limits)}
                error_code = Code.OUTPUT_LIMIT
            else:
                value = encoded
        except BaseException as exc:
            # The conversion calls the script's own methods (``__float__``, ``value``,
            # ``__lt__``, ``__repr__``): whatever they raise (``SystemExit`` and a
            # MemoryError of theirs too) is theirs; the run's limits are disarmed here.
            if isinstance(exc, MemoryError) and not raised_by_script(exc):
                value = {"type": "error", "message": explain(Code.MEMORY_LIMIT, self.limits)}
                error_code = Code.MEMORY_LIMIT
            else:
                kind = output.get("type", "output")
                value = {
                    "type": "error",
                    "message": f"{kind}(...) got a value that cannot be converted to JSON: "
                    f"{_described(exc)}",
                }
                error_code = error_code or Code.RUNTIME_ERROR
        stdout = "".join(self._printed)
        cpu_now = time.thread_time()
        return {
            "op": Op.DONE,
            "output": value,
            "stdout": stdout,
            "stdout_truncated": self._stdout_truncated,
            "error_code": error_code,
            "cpu_s": round(cpu_now - cpu_start, 6),
            "peak_memory_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "process_cpu_s": cpu_now,
        }

    def format_exception(self, exc: BaseException) -> str:
        """A traceback that shows only the script's own lines."""
        return script_traceback(exc, self._sources)


_RUN_CODE = ScriptRuntime.run.__code__


def install_cpu_handlers(runtime: ScriptRuntime) -> None:
    """Route the CPU-limit signals to ``runtime``."""
    signal.signal(signal.SIGPROF, runtime.on_cpu_signal)
    signal.signal(signal.SIGXCPU, runtime.on_cpu_signal)


def _identity(value: Any) -> Any:
    return value


def _cut_bytes(text: str, size: int) -> str:
    return text.encode("utf-8", "surrogatepass")[: max(size, 0)].decode("utf-8", "ignore")
