"""Escapes through control flow: swallowing the sandbox's exits and limits, forging them.

A result helper ends the script and the first call wins; a CPU limit stops a script
that catches everything; a script cannot make the host believe a limit was hit or a
tool was called.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Execution, FinalResult, Sandbox, SandboxPolicy


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


# -- result helpers ----------------------------------------------------------------------

SWALLOWS = {
    "bare except": "try:\n    final_result('first')\nexcept:\n    pass",
    "except BaseException": "try:\n    final_result('first')\nexcept BaseException:\n    pass",
    "finally return": "def f():\n    try:\n        final_result('first')\n    finally:\n"
    "        return 1\nf()",
    "finally continue": "for i in range(2):\n    try:\n        final_result('first')\n"
    "    finally:\n        continue",
    "__exit__ returns True": "class C:\n    def __enter__(self):\n        return self\n"
    "    def __exit__(self, *a):\n        return True\nwith C():\n    final_result('first')",
    "generator close": "def g():\n    try:\n        yield final_result('first')\n    finally:\n"
    "        return\nfor x in g():\n    pass",
    "nested helpers": "try:\n    final_result('first')\nexcept BaseException:\n    error('second')",
}


@pytest.mark.parametrize("source", list(SWALLOWS.values()), ids=list(SWALLOWS))
def test_first_helper_call_wins(sandbox: Sandbox, source: str) -> None:
    calls: list[int] = []
    tail = "\nping()\nprint('AFTER')\nfinal_result('second')"
    with sandbox.session(tools={"ping": lambda: calls.append(1)}) as session:
        execution = session.run(source + tail)
    assert execution.output == FinalResult(value="first")
    assert calls == []
    assert execution.tool_calls == []


@pytest.fixture(scope="module")
def tight() -> Iterator[Sandbox]:
    # The wall limit is far above the CPU limits (strict: 1 s soft, 1.5 s hard): on a busy
    # machine a script gets a fraction of a core, and CPU time, not wall time, must end it.
    policy = SandboxPolicy.preset("strict").with_limits(wall_s=40.0)
    with Sandbox(policy, spares=1) as sb:
        yield sb


@pytest.mark.timeout(90)
@pytest.mark.parametrize(
    "source",
    [
        "while True:\n    try:\n        while True:\n            pass\n"
        "    except BaseException:\n        pass",
        "class C:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *a):\n        return True\n"
        "while True:\n    with C():\n        while True:\n            pass",
        "def spin():\n    try:\n        while True:\n            pass\n    finally:\n"
        "        return\nwhile True:\n    spin()",
    ],
    ids=["except BaseException", "__exit__", "finally return"],
)
def test_swallowing_does_not_escape_the_cpu_limit(tight: Sandbox, source: str) -> None:
    execution = run(tight, source)
    assert execution.error_code == "cpu_limit"
    assert execution.duration_s < tight.policy.limits.wall_s


@pytest.mark.parametrize(
    "forge",
    [
        "raise g.t('timeout', 'FOR' + 'GED')",
        "v = g.t('x', 'y')\nBaseException.__init__(v, 'memory_limit', 'FOR' + 'GED')\n"
        "import copy\nraise copy.copy(v)",
        # A library callable creates it from the runtime's own frame (``print`` calls
        # ``file.write``, here a defaultdict lookup whose factory is the class).
        "import collections, functools, operator\n"
        "made = collections.defaultdict(functools.partial(g.t, 'timeout', 'FOR' + 'GED'))\n"
        "class Sink:\n    pass\nsink = Sink()\n"
        "sink.write = functools.partial(operator.getitem, made)\n"
        "print('key', file=sink)\nraise made['key\\n']",
    ],
    ids=["new instance", "copied instance", "made by a library from the runtime's frame"],
)
def test_script_cannot_forge_a_limit(sandbox: Sandbox, forge: str) -> None:
    source = (
        "class Grab:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, t, v, tb):\n        self.t = t\n        return True\n"
        "g = Grab()\nwith g:\n    print('x' * 100000)\n" + forge
    )
    execution = run(sandbox, source)
    # The sandbox's class reaches the script as the exception class it may hold: what
    # it raises with it is its own error, never a limit.
    assert execution.error_code in ("policy_violation", "runtime_error"), execution.output
    assert execution.error_code == "policy_violation" or "Traceback" in str(execution.output)


def test_script_cannot_forge_the_channel(sandbox: Sandbox) -> None:
    calls: list[int] = []
    forged = '{"op": "call", "name": "ping", "args": [], "kwargs": {}}'
    source = (
        f"print({forged!r})\nprint('\\x00\\x00\\x00\\x10' + {forged!r})\n"
        "final_result({'op': 'done', 'output': {'type': 'final_result', 'value': 'forged'}})"
    )
    with sandbox.session(tools={"ping": lambda: calls.append(1)}) as session:
        execution = session.run(source)
        refused = session.run("import socket\nsocket.socket()")
    assert calls == []
    assert execution.tool_calls == []
    assert execution.output == FinalResult(
        value={"op": "done", "output": {"type": "final_result", "value": "forged"}}
    )
    assert refused.error_code == "policy_violation"


#: A genuine MemoryError, caught: what a script can reach from one.
CAUGHT = "try:\n    bytearray(10**12)\nexcept MemoryError as caught:\n    real = caught\n"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "forge",
    [
        "raise MemoryError",
        "raise MemoryError('out of memory')",
        "def g():\n    yield\nx = g()\nnext(x)\nx.throw(MemoryError)",
        "class Mine(MemoryError):\n    pass\nraise Mine",
        "import copy\nraise copy.copy(MemoryError())",
        CAUGHT + "raise type(real)()",
        CAUGHT + "raise real.__class__('forged')",
        "import functools\nraise functools.partial(MemoryError)()",
        # The result's conversion to JSON calls the script's own methods.
        "import fractions\nclass F(fractions.Fraction):\n    def __float__(self):\n"
        "        raise MemoryError\nfinal_result(F(1, 2))",
        # CPython 3.11's parser reports deep nesting as a MemoryError.
        "eval('-' * 7000 + '1')",
        # A real class reached through a callback's collected arguments.
        "class CM:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        global held\n        held = exc\n"
        "        return True\nwith CM():\n    raise MemoryError\n"
        "class X(*held[:1]):\n    pass\nraise X('forged')",
    ],
    ids=[
        "raise",
        "message",
        "throw",
        "subclass",
        "copy",
        "type()",
        "__class__",
        "library",
        "conversion",
        "parser",
        "collected arguments",
    ],
)
def test_script_cannot_forge_the_memory_limit(sandbox: Sandbox, forge: str) -> None:
    # No allocation failed where the script ended: it made the MemoryError itself.
    execution = run(sandbox, forge)
    assert execution.error_code == "runtime_error", execution.output


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "source",
    [
        "class K(str):\n    def __repr__(self):\n        raise SystemExit\n"
        "{'type': 'final_result', 'value': {K('a'): 1}}",
        "class N:\n    def __eq__(self, other):\n        raise SystemExit\nraise SystemExit(N())",
        "class K(str):\n    def __repr__(self):\n        raise KeyboardInterrupt\n"
        "final_result({K('a'): 1})",
    ],
    ids=["conversion raises SystemExit", "exit status compares", "conversion interrupts"],
)
def test_the_runtimes_own_handling_runs_no_script_code_unguarded(
    sandbox: Sandbox, source: str
) -> None:
    with sandbox.session() as session:
        session.run("kept = 41")
        execution = session.run(source)
        after = session.run("print(kept + 1)")
    assert execution.error_code == "runtime_error", execution.output
    assert after.stdout == "42\n", after.output


def test_a_metaclass_cannot_answer_for_a_classs_bases() -> None:
    # ``raised_by_script`` reads the interpreter's MRO slot, not ``type(exc).__mro__``.
    from sandbox.worker.language.memory_errors import ScriptMemoryError, raised_by_script

    class Lying(type(ScriptMemoryError)):
        __mro__ = property(lambda cls: (cls, MemoryError, BaseException, object))

    made = Lying("Made", (ScriptMemoryError,), {})
    assert made.__mro__[1] is MemoryError
    assert raised_by_script(made())


@pytest.mark.timeout(60)
def test_the_result_is_read_by_native_code_only(sandbox: Sandbox) -> None:
    # A dict subclass as the last value: its own ``__contains__`` is never asked.
    source = "class D(dict):\n    def __contains__(self, key):\n        raise ValueError\n"
    with sandbox.session() as session:
        kept = session.run(source + "x = 1\nD(type='final_result', value=3)")
        after = session.run("print(x + 1)")
    assert kept.output == FinalResult(value=3), kept.output
    assert after.stdout == "2\n", after.output


@pytest.mark.timeout(60)
def test_a_script_handles_running_out_of_memory_as_python_does(sandbox: Sandbox) -> None:
    source = CAUGHT + (
        "print(type(real) is MemoryError, isinstance(real, MemoryError),"
        " issubclass(type(real), Exception))\n"
        "try:\n    bytearray(10**12)\nexcept (KeyError, MemoryError):\n    print('tuple')\n"
        "class Errors(tuple):\n    pass\n"
        "try:\n    bytearray(10**12)\nexcept Errors((KeyError, MemoryError)):\n"
        "    print('subclass')\n"
        "import contextlib\nwith contextlib.suppress(MemoryError):\n    bytearray(10**12)\n"
        "print('suppressed')\nraise real"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "True True True\ntuple\nsubclass\nsuppressed\n"
    # The one the allocation raised is the memory limit, wherever it is raised again.
    assert execution.error_code == "memory_limit"
