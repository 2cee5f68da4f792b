"""smolagents' executor entry points, backed by :class:`CodeactExecutor`.

``test_local_python_executor.py`` drives smolagents' interpreter through two names:
``evaluate_python_code(code, static_tools, custom_tools, state, authorized_imports)``
and ``LocalPythonExecutor(additional_authorized_imports, ...)``. ``conftest.py`` puts
these in their place for every test, so the suite runs unchanged against the sandbox:

- the tools become host tools (a tool that is one of the sandbox's builtins, such as
  ``range`` or ``print``, is left to the builtin), ``final_answer`` the script's own;
- the state's variables with a JSON form are sent in; after the run, the variables the
  code bound (those with a JSON form) are read back into the state, and
  ``_print_outputs`` holds what it printed;
- ``authorized_imports`` extend the ``default`` policy, one started sandbox per policy,
  with a CPU limit of one second (``test_while``'s endless loop ends there, not after
  the default five).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from typing import Any

from smolagents.local_python_executor import BASE_BUILTIN_MODULES, InterpreterError, PrintContainer

from codeact.integrations.smolagents import CodeactExecutor
from codeact.integrations.variables import VariableError, assignments, bound_names, read_back
from sandbox import Sandbox, SandboxPolicy
from sandbox.protocol import RESERVED_NAMES

_SANDBOXES: dict[str, Sandbox] = {}
#: The executors a test made, cleaned up after it (a session holds a worker).
_EXECUTORS: list[CodeactExecutor] = []


def sandbox_for(authorized_imports: list[str]) -> Sandbox:
    """A started sandbox whose policy allows ``authorized_imports`` (kept for reuse)."""
    base = SandboxPolicy.preset("default").with_limits(cpu_soft_s=1.0, cpu_hard_s=2.0)
    extra = sorted({n for n in authorized_imports if n not in base.modules})
    key = ",".join(extra)
    if key not in _SANDBOXES:
        try:
            policy = base.allow_modules(*extra) if extra else base
        except Exception as exc:  # a module that is not installed, as smolagents checks
            raise InterpreterError(f"Non-installed authorized modules: {exc}") from None
        _SANDBOXES[key] = Sandbox(policy).start()
    return _SANDBOXES[key]


def close_sandboxes() -> Iterator[None]:
    yield
    while _SANDBOXES:
        _SANDBOXES.popitem()[1].close()


def close_executors() -> Iterator[None]:
    yield
    while _EXECUTORS:
        _EXECUTORS.pop().cleanup()


def _host_tools(*tool_sets: dict[str, Callable[..., Any]] | None) -> dict[str, Any]:
    tools: dict[str, Any] = {}
    for tool_set in tool_sets:
        for name, tool in (tool_set or {}).items():
            if name in RESERVED_NAMES or name.startswith("_") or hasattr(builtins, name):
                continue  # the sandbox's own builtin
            tools[name] = tool
    return tools


def _sendable(state: dict[str, Any]) -> dict[str, Any]:
    sendable = {}
    for name, value in state.items():
        try:
            assignments({name: value}, 1_000_000)
        except VariableError:
            continue
        sendable[name] = value
    return sendable


def evaluate_python_code(
    code: str,
    static_tools: dict[str, Callable[..., Any]] | None = None,
    custom_tools: dict[str, Callable[..., Any]] | None = None,
    state: dict[str, Any] | None = None,
    authorized_imports: list[str] = BASE_BUILTIN_MODULES,
    max_print_outputs_length: int | None = None,
    timeout_seconds: int | None = None,
) -> tuple[Any, bool]:
    state = {} if state is None else state
    executor = CodeactExecutor(sandbox=sandbox_for(list(authorized_imports)))
    try:
        executor.send_tools(_host_tools(static_tools, custom_tools))
        executor.send_variables(_sendable(state))
        try:
            out = executor(code)
        finally:
            printed = PrintContainer()
            printed.append(executor.state["_print_outputs"])
            state["_print_outputs"] = printed
            _read_state(executor, code, state)
        return out.output, out.is_final_answer
    finally:
        executor.cleanup()


def _read_state(executor: CodeactExecutor, code: str, state: dict[str, Any]) -> None:
    session = executor._session
    if session is None:
        return
    execution = session.run(read_back(bound_names(code)))
    if execution.output.type == "observation" and isinstance(execution.output.value, dict):
        state.update(execution.output.value)


class LocalPythonExecutor(CodeactExecutor):
    """``LocalPythonExecutor``'s constructor over :class:`CodeactExecutor`."""

    def __init__(
        self,
        additional_authorized_imports: list[str],
        max_print_outputs_length: int | None = None,
        additional_functions: dict[str, Callable[..., Any]] | None = None,
        timeout_seconds: int | None = None,
    ) -> None:
        imports = [*BASE_BUILTIN_MODULES, *additional_authorized_imports]
        super().__init__(additional_authorized_imports, sandbox=sandbox_for(imports))
        self.state["__name__"] = "__main__"
        _EXECUTORS.append(self)
        self._additional = _host_tools(additional_functions)
        self.send_tools({})

    def send_tools(self, tools: dict[str, Any]) -> None:
        super().send_tools({**_host_tools(tools), **self._additional})
