"""smolagents: :class:`CodeactExecutor`, a ``PythonExecutor`` that runs a ``CodeAgent``'s
code in the sandbox, and :class:`CodeactCodeAgent`, a ``CodeAgent`` that uses it.

What maps onto what:

- ``send_tools``: each tool (and managed agent) becomes a host function the script
  calls over the worker's channel; the tool runs in the caller's process, its
  arguments and result crossing as JSON. ``final_answer`` is a script function that
  ends the script (it cannot be swallowed by ``except``); its value then goes through
  the agent's ``final_answer`` tool on the host.
- ``send_variables``: each variable is bound in the script's globals (JSON values).
- ``__call__(code)`` → ``CodeOutput``: ``logs`` is what the script printed; ``output``
  the value of its last expression (or of the variable its last statement assigned),
  as JSON data, or its ``repr`` when it has no JSON form; ``is_final_answer`` when it
  called ``final_answer``. A failed script raises ``InterpreterError`` with the
  sandbox's message (a traceback of the script's own lines, or the limit it hit).
- State: one sandbox session holds the variables across calls and across
  ``agent.run`` calls; new tools start a new session.
- ``additional_authorized_imports``: added to the policy with
  :meth:`~sandbox.SandboxPolicy.allow_modules` (curated modules such as ``numpy``
  keep their member lists; others, ``pkg.*`` and ``*`` are contained by the OS layer).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from typing import Any

from smolagents import CodeAgent
from smolagents.local_python_executor import CodeOutput, InterpreterError, PythonExecutor

from codeact.integrations.variables import VariableError, assignments
from sandbox import Execution, Sandbox, SandboxPolicy, Session

__all__ = ["CodeactCodeAgent", "CodeactExecutor"]

#: Where the value of a script's last expression is kept for reading.
OUTPUT_NAME = "codeact_output"

#: ``final_answer`` in the script: the helper ends the script whatever catches what.
_FINAL_ANSWER = "def final_answer(answer):\n    final_result(answer)\n"

_JSON_REFUSAL = re.compile(r"^(final_result|observation)\(\.\.\.\) got a value that cannot")


class CodeactExecutor(PythonExecutor):
    """A smolagents ``PythonExecutor`` that runs code in a codeact sandbox session.

    ``policy`` (a :class:`~sandbox.SandboxPolicy` or a preset name, default
    ``"default"``) is extended by ``additional_authorized_imports``. Pass a started
    ``sandbox`` to share one between executors (its policy is then used as it is);
    otherwise the executor starts its own on first use and stops it in
    :meth:`cleanup`.
    """

    def __init__(
        self,
        additional_authorized_imports: Sequence[str] = (),
        *,
        policy: SandboxPolicy | str | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.additional_authorized_imports = list(additional_authorized_imports)
        if sandbox is not None:
            self.policy = sandbox.policy
            refused = [n for n in self.additional_authorized_imports if not _allows(self.policy, n)]
            if refused:
                raise ValueError(
                    f"the sandbox's policy does not allow importing {', '.join(refused)}: pass "
                    "policy= instead of sandbox=, or a sandbox whose policy allows them"
                )
        else:
            base = (
                policy
                if isinstance(policy, SandboxPolicy)
                else SandboxPolicy.load(policy or "default")
            )
            imports = [n for n in self.additional_authorized_imports if n not in base.modules]
            self.policy = base.allow_modules(*imports) if imports else base
        self._sandbox = sandbox
        self._own_sandbox = sandbox is None
        self._tools: dict[str, Callable[..., Any]] = {}
        self._final_answer: Callable[..., Any] | None = None
        self._pending: dict[str, Any] = {}
        self._session: Session | None = None
        #: ``_print_outputs``: what the last script printed (``CodeAgent`` shows it
        #: when a script fails).
        self.state: dict[str, Any] = {"_print_outputs": ""}

    @property
    def authorized_imports(self) -> list[str]:
        """What scripts may import under the executor's policy."""
        return sorted({*self.policy.modules, *self.policy.extra_modules})

    # -- PythonExecutor ------------------------------------------------------------
    def send_tools(self, tools: dict[str, Any]) -> None:
        """Make ``tools`` (smolagents tools, managed agents, callables) callable from
        scripts; a different set of names starts a new session."""
        final = tools.get("final_answer")
        self._final_answer = final if callable(final) else None
        wrapped = {name: _host_call(tool) for name, tool in tools.items() if name != "final_answer"}
        if self._session is not None and set(wrapped) != set(self._tools):
            self._close_session()
        self._tools = wrapped

    def send_variables(self, variables: dict[str, Any]) -> None:
        """Bind ``variables`` in the scripts' globals (JSON values)."""
        assignments(variables, self.policy.limits.source_bytes)  # refuse now, not later
        if self._session is None:
            self._pending.update(variables)
        else:
            self._assign(self._session, variables)

    def __call__(self, code_action: str) -> CodeOutput:
        session = self._ensure_session()
        source, read = _capture_last_value(code_action)
        execution = session.run(source)
        self.state["_print_outputs"] = execution.stdout
        output = execution.output
        if output.type == "final_result":
            value = output.value
            if self._final_answer is not None:
                value = self._final_answer(value)
            return CodeOutput(output=value, logs=execution.stdout, is_final_answer=True)
        if output.type == "error":
            raise InterpreterError(_error_text(execution))
        if output.type == "transfer_to_agent":
            raise InterpreterError("transfer_to_agent() is not available to smolagents agents")
        if output.value != execution.stdout:  # the script called observation(value)
            value = output.value
        elif read is None:
            value = None
        else:
            value = self._read(session, read)
        return CodeOutput(output=value, logs=execution.stdout, is_final_answer=False)

    def cleanup(self) -> None:
        """End the session, and stop the sandbox if the executor started it."""
        self._close_session()
        if self._own_sandbox and self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def __del__(self) -> None:
        # An executor dropped without cleanup() gives its worker back.
        try:
            self._close_session()
        except Exception:
            pass

    # -- the session -----------------------------------------------------------------
    def _ensure_session(self) -> Session:
        if self._session is not None:
            return self._session
        if self._sandbox is None:
            self._sandbox = Sandbox(self.policy).start()
        session = self._sandbox.session(self._tools)
        try:
            _checked(session.run(_FINAL_ANSWER))
            if self._pending:
                self._assign(session, self._pending)
        except BaseException:
            session.close()
            raise
        self._pending = {}
        self._session = session
        return session

    def _assign(self, session: Session, variables: dict[str, Any]) -> None:
        try:
            scripts = assignments(variables, self.policy.limits.source_bytes)
        except VariableError as exc:
            raise InterpreterError(str(exc)) from None
        for script in scripts:
            _checked(session.run(script))

    def _read(self, session: Session, name: str) -> Any:
        execution = session.run(f"observation({name})")
        if execution.output.type == "error":
            # No JSON form, or too large: its repr, cut to what a result may hold.
            chars = self.policy.limits.result_bytes // 4
            execution = session.run(f"observation(repr({name})[:{chars}])")
        if name == OUTPUT_NAME:
            session.run(f"del {name}")  # never seen by a later script
        output = execution.output
        if output.type == "observation":
            return output.value
        message = output.message if output.type == "error" else output.type
        return f"<the last value could not be read: {message}>"

    def _close_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.close()


class CodeactCodeAgent(CodeAgent):
    """A smolagents ``CodeAgent`` whose code runs in a codeact sandbox.

    Takes ``CodeAgent``'s arguments, plus ``policy`` and ``sandbox`` as for
    :class:`CodeactExecutor`; the system prompt lists what the policy lets scripts
    import. Use it as a context manager, or call ``cleanup()``, to stop the sandbox.
    """

    def __init__(
        self,
        tools: list[Any],
        model: Any,
        *,
        policy: SandboxPolicy | str | None = None,
        sandbox: Sandbox | None = None,
        **kwargs: Any,
    ) -> None:
        if "executor" in kwargs or "executor_type" in kwargs:
            raise TypeError("CodeactCodeAgent makes its own executor: pass policy= or sandbox=")
        self._codeact_policy = policy
        self._codeact_sandbox = sandbox
        super().__init__(tools, model, **kwargs)
        self.authorized_imports = self.python_executor.authorized_imports

    def create_python_executor(self) -> CodeactExecutor:
        return CodeactExecutor(
            self.additional_authorized_imports,
            policy=self._codeact_policy,
            sandbox=self._codeact_sandbox,
        )


def _allows(policy: SandboxPolicy, name: str) -> bool:
    """Whether scripts under ``policy`` may import ``name`` (a module or ``pkg.*``)."""
    allowed = {*policy.modules, *policy.extra_modules}
    if name in allowed or "*" in allowed:
        return True
    return any(p.endswith(".*") and name.startswith(p[:-1]) for p in allowed)


def _host_call(tool: Callable[..., Any]) -> Callable[..., Any]:
    # Tools take their arguments as smolagents' own interpreter passes them.
    def call(*args: Any, **kwargs: Any) -> Any:
        return tool(*args, **kwargs)

    call.__name__ = str(getattr(tool, "name", None) or getattr(tool, "__name__", "tool"))
    call.__doc__ = str(getattr(tool, "description", None) or tool.__doc__ or "")
    return call


def _checked(execution: Execution) -> None:
    if execution.output.type == "error":
        raise InterpreterError(execution.output.message)


def _error_text(execution: Execution) -> str:
    message = execution.output.message if execution.output.type == "error" else ""
    if _JSON_REFUSAL.match(message):
        message = message.replace("final_result(...)", "final_answer(...)", 1)
    # A traceback quotes the last line as the model wrote it.
    return message.replace(f"{OUTPUT_NAME} = ", "")


def _capture_last_value(code: str) -> tuple[str, str | None]:
    """The code to run and the name holding its last value, if it has one: a last
    expression is assigned to :data:`OUTPUT_NAME`; a last assignment to one name is
    read from that name."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code, None  # the sandbox reports it
    if not tree.body:
        return code, None
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        if _is_call_to(last.value, {"print", "final_answer", "final_result", "observation"}):
            return code, None
        lines = code.splitlines(keepends=True)
        row = last.lineno - 1
        line = lines[row]
        offset = len(line.encode()[: last.col_offset].decode())
        lines[row] = f"{line[:offset]}{OUTPUT_NAME} = {line[offset:]}"
        return "".join(lines), OUTPUT_NAME
    targets: list[ast.expr] = []
    if isinstance(last, ast.Assign):
        targets = last.targets
    elif isinstance(last, ast.AugAssign | ast.AnnAssign) and last.value is not None:
        targets = [last.target]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return code, (names[0] if names else None)


def _is_call_to(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
