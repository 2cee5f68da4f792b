"""``eval`` and ``exec`` of strings: the script's rules, its namespace, safe builtins."""

from __future__ import annotations

import textwrap

import pytest

from sandbox import Sandbox

pytestmark = pytest.mark.timeout(120)


def run(sandbox: Sandbox, source: str):  # type: ignore[no-untyped-def]
    with sandbox.session() as session:
        return session.run(textwrap.dedent(source))


def test_eval_and_exec_work_like_python(sandbox: Sandbox) -> None:
    source = """
    print(eval("2*(3+4)"))
    def f(x):
        k = 10
        return eval("x + k")
    print(f(1))
    exec("def g(n):\\n    return h(n) * 2\\ndef h(n):\\n    return n + 1\\ny = g(3)")
    print(y, g(1))
    ns = {}
    exec("import math\\nz = math.sqrt(16)\\nclass A:\\n    pass\\n", ns)
    print(ns["z"], sorted(k for k in ns if k != "__builtins__"))
    print(eval("a * b", {"a": 2}, {"b": 5}), eval("abs(-1)", {}))
    print(eval("[i * m for i in range(3)]", {"m": 3}))
    print(eval("(lambda: len('abc'))()", {"__builtins__": {"len": len}}))
    """
    execution = run(sandbox, source)
    assert execution.stdout == "14\n11\n8 4\n4.0 ['A', 'math', 'z']\n10 1\n[0, 3, 6]\n3\n"


def test_errors_read_like_python(sandbox: Sandbox) -> None:
    syntax = run(sandbox, "try:\n    eval('1 +')\nexcept SyntaxError as e:\n    print(e.msg)")
    assert syntax.stdout == "invalid syntax\n"
    failed = run(sandbox, "eval('1/0')")
    assert failed.error_code == "runtime_error"
    assert "line 1, in <module>\n    1/0\nZeroDivisionError" in failed.output.message


@pytest.mark.parametrize(
    "source",
    [
        "eval('__import__(\"os\")')",
        "exec('import os')",
        "exec('x = ().__class__.__bases__')",
        "eval('print.__self__')",
        "eval(\"getattr(print, '__self__')\")",
        "ns = {}\nexec('pass', ns)\nns['__builtins__']['__import__']('os')",
        "ns = {}\nexec('pass', ns)\nns['__builtins__']['open']",
    ],
)
def test_the_scripts_rules_hold_inside(sandbox: Sandbox, source: str) -> None:
    execution = run(sandbox, source + "\nprint('GOT')")
    assert execution.error_code in ("policy_violation", "runtime_error")
    assert "GOT" not in execution.stdout


def test_the_namespace_cannot_rebind_the_guards(sandbox: Sandbox) -> None:
    # The script holds the dict it passes: rebinding the write guard in it between two
    # statements must change nothing.
    source = """
    import json
    ns = {"json": json}
    def rebind():
        ns[".write"] = lambda o: o
        ns[".getattr"] = lambda o, n: 1
    ns["rebind"] = rebind
    try:
        exec("rebind()\\njson.JSONEncoder.item_separator = '!!'", ns)
    except TypeError as exc:
        print("refused")
    print(json.dumps([1, 2]))
    """
    execution = run(sandbox, source)
    assert execution.stdout == "refused\n[1, 2]\n"


def test_a_str_subclass_is_read_once_as_its_text(sandbox: Sandbox) -> None:
    source = """
    class S(str):
        def __str__(self): return "__import__('os')"
        def encode(self, *a): return b"__import__('os')"
    print(eval(S("2+2")))
    """
    assert run(sandbox, source).stdout == "4\n"


def test_limits_hold_inside(sandbox: Sandbox) -> None:
    execution = run(sandbox, "exec('while True:\\n    pass')")
    # On a loaded machine the wall clock may run out before the CPU limit.
    assert execution.error_code in ("cpu_limit", "timeout")
    big = run(sandbox, "eval('1+' * 200000 + '1')")
    assert big.error_code in ("runtime_error", "policy_violation")
