"""The membrane: every position where native code hands script code a value checks it.

The enumeration (``membrane_positions.POSITIONS``) is checked against the node types the
compiler accepts; each checked position is tried for real, compiled by the sandbox and run
with the worker's builtins, guards and module proxies, with native code handing over the
real ``type`` (which the script must receive as the sandbox's own); and
:func:`membrane.enter` is tried on every kind of value no script may hold.
"""

from __future__ import annotations

import abc
import ast
import builtins
import json
import sys
import types
from collections.abc import Iterator
from types import CodeType

import pytest

from sandbox import Sandbox, SandboxPolicy, Session
from sandbox.worker.language import membrane
from sandbox.worker.language.classes import SafeType
from sandbox.worker.language.compiler import compile_script
from sandbox.worker.language.control import ForbiddenOperation
from sandbox.worker.language.guards import build_class, builtin_catalog, generated_bindings
from sandbox.worker.language.membrane_positions import CONSUMING, POSITIONS
from sandbox.worker.language.modules import build_proxies, make_import
from sandbox.worker.language.names import ENTER, ENTER_ITEMS, NODE_FIELDS, UNPACK

# -- the enumeration -------------------------------------------------------------------


def test_every_node_type_the_compiler_accepts_is_placed() -> None:
    # NODE_FIELDS is checked against ``ast`` (test_names.py): a node type a new Python
    # adds is refused until it is placed here too.
    assert set(POSITIONS) == set(NODE_FIELDS)
    assert set(CONSUMING) <= set(NODE_FIELDS)


def _names(code: CodeType) -> set[str]:
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names |= set(current.co_names) | set(current.co_varnames)
        stack += [c for c in current.co_consts if isinstance(c, CodeType)]
    return names


#: One snippet per checked position: each must compile to a membrane call.
CHECKED_SNIPPETS = {
    "Call": "x = f()",
    "Await": "async def g():\n    x = await f()",
    "Yield": "def g():\n    x = yield",
    "YieldFrom": "def g():\n    x = yield from f",
    "FunctionDef": "def g(a):\n    pass",
    "AsyncFunctionDef": "async def g(a):\n    pass",
    "Lambda": "g = lambda a: a",
    "ClassDef": "@d\nclass C:\n    pass",
    "For": "for x in xs:\n    pass",
    "AsyncFor": "async def g():\n    async for x in xs:\n        pass",
    "comprehension": "y = [x for x in xs]",
    "Assign": "a, b = xs",
    "With": "with c as x:\n    pass",
    "AsyncWith": "async def g():\n    async with c as x:\n        pass",
    "withitem": "with c as x:\n    pass",
    "ExceptHandler": "try:\n    pass\nexcept E as e:\n    pass",
    "match_case": "match s:\n    case x:\n        pass",
    "MatchAs": "match s:\n    case [x]:\n        pass",
    "MatchStar": "match s:\n    case [*xs]:\n        pass",
    "MatchMapping": "match s:\n    case {**rest}:\n        pass",
    "MatchSequence": "match s:\n    case [x, y]:\n        pass",
    "MatchClass": "match s:\n    case C(a=x):\n        pass",
    "MatchOr": "match s:\n    case [x] | (x, 1):\n        pass",
    "arguments": "def g(*a, **k):\n    pass",
    "arg": "def g(a):\n    pass",
    "Subscript": "x = xs[0]",
    "Attribute": "x = o.a",
}


@pytest.mark.parametrize(
    "node", sorted(n for n, how in POSITIONS.items() if how.startswith("checked:"))
)
def test_each_checked_position_compiles_to_a_check(node: str) -> None:
    code = compile_script(CHECKED_SNIPPETS[node], "<script>")
    assert isinstance(code, CodeType), code
    assert _names(code) & {ENTER, UNPACK, ENTER_ITEMS}, node


@pytest.mark.parametrize("source", ["f()", "if f():\n    pass", "return_ = [1 for x in f()]"])
def test_values_used_and_dropped_are_not_checked(source: str) -> None:
    # A statement's discarded call, a truth test: nothing is held, nothing to check.
    code = compile_script(source, "<script>")
    assert isinstance(code, CodeType)
    tree = ast.parse(source)
    calls = sum(isinstance(n, ast.Call) for n in ast.walk(tree))
    assert calls and ".held" not in _names(code)


# -- every position, for real ----------------------------------------------------------

#: Native code hands over the real ``type``: ``REAL`` is a native iterator planted in the
#: script's globals (the curated modules hand out no such value any more: that is what
#: these positions must hold against if one ever does).
POSITION_SCRIPTS = {
    "call result": "t = next(REAL)",
    "parameter": "def f(x):\n    return x\nt = list(map(f, REAL))[0]",
    "lambda parameter": "t = list(map(lambda x: [x], REAL))[0][0]",
    "for target": "for t in REAL:\n    pass",
    "comprehension target": "t = [x for x in REAL][0]",
    "unpacking": "(t,) = REAL",
    "starred unpacking": "a, *rest = map(next, [iter([0]), REAL])\nt = rest[0]",
    "with target": (
        "class CM:\n"
        "    __enter__ = staticmethod(functools.partial(next, REAL))\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n"
        "with CM() as t:\n"
        "    pass"
    ),
    "match capture": ("match dict(zip(['k'], REAL)):\n    case {'k': t}:\n        pass"),
    "match rest": ("match dict(zip(['k'], REAL)):\n    case {**rest}:\n        t = rest['k']"),
    "await result": (
        "async def main():\n    return [await asyncio.sleep(0, *REAL)]\nt = asyncio.run(main())[0]"
    ),
    "sent value": (
        "def g():\n"
        "    got = yield\n"
        "    yield [got]\n"
        "gen = g()\n"
        "next(gen)\n"
        "t = list(map(gen.send, REAL))[0][0]"
    ),
    "decorated definition": "@functools.partial(next, REAL)\ndef t():\n    pass",
    "method parameter": (
        "class K:\n    def take(self, x):\n        return [x]\nt = list(map(K().take, REAL))[0][0]"
    ),
    "default argument": "def f(x=next(REAL)):\n    return [x]\nt = f()[0]",
    "class body": "class K:\n    t = next(REAL)\nt = K.t",
    "attribute": "t = functools.partial(*REAL).func",
    "attribute of a namespace": "t = types.SimpleNamespace(**dict(zip(['a'], REAL))).a",
    "attribute of a named tuple": (
        "import collections\nt = collections.namedtuple('P', 'x')._make(REAL).x"
    ),
    # Native code reads a collected parameter's items without the script taking them
    # out (``map(operator.call, args)``): ``in`` compares them natively too.
    "*args item": (
        "def f(*a):\n    return a\na = list(map(f, REAL))[0]\nt = type if type in a else 0"
    ),
    "**kwargs value": (
        "def f(**k):\n    return k\na = f(**dict(zip(['k'], REAL)))\n"
        "t = type if type in a.values() else 0"
    ),
    "lambda *args item": "a = list(map(lambda *a: a, REAL))[0]\nt = type if type in a else 0",
    # Values native code may keep: what a function returns or yields to a native caller.
    "returned value": (
        "def f(_):\n    return next(REAL)\nt = type if type in list(map(f, [0])) else 0"
    ),
    "yielded value": "def g():\n    yield next(REAL)\nt = type if type in list(g()) else 0",
}

_PROXIES = build_proxies(["asyncio", "collections", "functools", "types", "typing"])


def run_in_process(source: str, real: object) -> dict[str, object]:
    """``source`` compiled by the sandbox and run here with the worker's builtins, guards
    and module proxies, ``REAL`` a native iterator over ``real``."""
    code = compile_script("import asyncio, functools, types, typing\n" + source, "<script>")
    assert isinstance(code, CodeType), code
    builtins_ = {**builtin_catalog(), "__import__": make_import(_PROXIES)}
    builtins_["__build_class__"] = build_class
    namespace = {"__builtins__": builtins_, "__name__": "__main__", "REAL": iter([real])}
    namespace.update(generated_bindings(lambda value: value))
    exec(code, namespace)
    return namespace


@pytest.mark.parametrize("where", sorted(POSITION_SCRIPTS))
def test_every_position_checks_what_native_code_hands_over(where: str) -> None:
    held = run_in_process(POSITION_SCRIPTS[where], builtins.type)["t"]
    assert held is SafeType, f"{where}: the script held {held!r}, not the sandbox's type"


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    policy = SandboxPolicy.preset("default").with_layers(os=False)
    with Sandbox(policy, spares=0) as box, box.session() as opened:
        yield opened


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "call",
    [
        "functools.partial(*map(typing.get_origin, [typing.Type])).func('X', (), {})",
        "difflib.SequenceMatcher.set_seq1(json.JSONEncoder, 'x')",
        "types.MethodType(difflib.SequenceMatcher.set_seq1, json.JSONEncoder)('x')",
    ],
)
def test_a_method_call_checks_its_method(session: Session, call: str) -> None:
    # ``obj.method(...)`` stays a native method call; the method is checked like any
    # value: the real type arrives as the sandbox's, an unbound library method bound.
    execution = session.run(f"import difflib, functools, json, types, typing\n{call}")
    assert execution.error_code in ("runtime_error", "policy_violation"), execution.output
    assert "TypeError" in str(execution.output)
    check = session.run("import json\nprint(hasattr(json.JSONEncoder, 'a'))")
    assert check.stdout == "False\n"


@pytest.mark.timeout(60)
def test_library_methods_still_work_on_their_own_objects(session: Session) -> None:
    execution = session.run(
        "import difflib, json, collections\n"
        "m = difflib.SequenceMatcher()\n"
        "difflib.SequenceMatcher.set_seqs(m, 'abc', 'abd')\n"
        "c = collections.Counter('aab')\n"
        "print(round(m.ratio(), 2), json.JSONEncoder.encode(json.JSONEncoder(), [1]),\n"
        "      collections.Counter.most_common(c, 1), [x.upper() for x in 'ab'])"
    )
    assert execution.stdout == "0.67 [1] [('a', 2)] ['A', 'B']\n", execution.output


@pytest.mark.timeout(60)
def test_a_library_class_reaches_a_parameter_as_type_shows_it(session: Session) -> None:
    # ``isinstance`` hands an ABC's hook the real class of the object it tests.
    execution = session.run(
        "import abc, typing\ngot = []\n"
        "class A(abc.ABC):\n    @classmethod\n"
        "    def __subclasshook__(cls, C):\n        got.append(C)\n        return NotImplemented\n"
        "isinstance(typing.List[int], A)\n"
        "print(got[0] is type(typing.List[int]))\ngot[0](list, '__import__', name='__builtins__')"
    )
    assert execution.stdout == "True\n", execution.output
    assert "cannot be created directly" in str(execution.output)


@pytest.mark.timeout(60)
def test_the_real_type_builds_nothing_wherever_it_came_from(session: Session) -> None:
    execution = session.run(
        "import typing\nt = typing.get_origin(typing.Type)\nt('X', (), {'__getattribute__': 1})"
    )
    assert execution.error_code == "runtime_error"
    assert "exactly one argument" in str(execution.output)


def test_the_real_type_behind_a_subscript_builds_nothing() -> None:
    # The object of a subscript is read, not held: ``t[int]`` is an alias calling ``t``.
    with pytest.raises(TypeError, match="exactly one argument"):
        run_in_process("t = next(REAL)[int]\nt('X', (), {'__reduce_ex__': 1})", builtins.type)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "source",
    [
        "typing.get_origin(typing.Type)",
        "typing.get_args(typing.get_origin(typing.Type) | int)[0]",
        "types.resolve_bases((typing.Type,))[0]",
        "next(map(typing.get_origin, [typing.Type]))",
    ],
)
def test_library_functions_that_read_special_members_hand_out_the_sandboxs_type(
    session: Session, source: str
) -> None:
    # Native code calling them for the script (``map``) gets what the script would.
    execution = session.run(f"import types, typing\nprint({source} is type)")
    assert execution.stdout == "True\n", execution.output


@pytest.mark.timeout(60)
def test_the_type_of_a_class_subscripts_as_pythons_does(session: Session) -> None:
    execution = session.run("def f(x: type[int]) -> type:\n    return x\nprint(f(int)(3))")
    assert execution.stdout == "3\n", execution.output


@pytest.mark.timeout(60)
def test_the_shared_decimal_contexts_are_handed_out_as_copies(session: Session) -> None:
    # Every new decimal.Context() copies DefaultContext: its methods and its traps
    # must not change it (its attributes are read-only, guards.guarded_write).
    changed = session.run(
        "import decimal\ndecimal.DefaultContext.clear_traps()\n"
        "decimal.DefaultContext.traps[decimal.Inexact] = True"
    )
    assert changed.error_code is None, changed.output
    later = session.run(
        "import decimal\nc = decimal.Context()\nprint(c.traps[decimal.DivisionByZero], "
        "c.traps[decimal.Inexact], decimal.DefaultContext.prec)"
    )
    assert later.stdout == "True False 28\n", later.output


PROXY_PROBE = """
import dataclasses, string
got = []
class S:
    def __or__(self, other):
        got.append(other)
        return NotImplemented
    def __ror__(self, other):
        got.append(other)
        return other
    def __eq__(self, other):
        got.append(other)
        return NotImplemented
    __hash__ = None
"""
PROXY_WRITE = """
for d in got:
    if type(d) is dict:
        d["injected"] = 1
print("injected" in string.Template.pattern.groupindex, dataclasses.field().metadata)
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "route",
    [
        "dataclasses.field().metadata | S()",
        "S() == string.Template.pattern.groupindex",
        "string.Template.pattern.groupindex != S()",
        "g = string.Template.pattern.groupindex\ng == S()",
        "try:\n    S() | dataclasses.field().metadata\nexcept TypeError:\n    pass",
        "match S():\n    case string.Template.pattern.groupindex:\n        pass\n"
        "    case _:\n        pass",
        "[string.Template.pattern.groupindex] == [S()]",
    ],
)
def test_a_mapping_proxy_never_hands_out_the_dict_behind_it(session: Session, route: str) -> None:
    # ``proxy | x`` and ``proxy == x`` apply the operator to the dict behind the proxy,
    # so a script's reflected method would receive it: a library's private state. The
    # script's operator methods receive every dict as a copy (``proxied_dicts``).
    execution = session.run(PROXY_PROBE + route + PROXY_WRITE)
    assert execution.error_code is None, execution.output
    assert execution.stdout == "False {}\n", execution.output


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "defined",
    [
        "def helper(self, other):\n    got.append(other)\n    return NotImplemented\n"
        "class T:\n    __eq__ = helper\n    __hash__ = None",
        "class T:\n    __eq__ = lambda self, other: got.append(other) or NotImplemented\n"
        "    __hash__ = None",
        "exec('class T:\\n    def __eq__(self, other):\\n        got.append(other)\\n"
        "        return NotImplemented\\n    __hash__ = None', ns := {'got': got})\n"
        "T = ns['T']",
    ],
    ids=["assigned helper", "lambda", "exec"],
)
def test_every_operator_method_receives_dicts_as_copies(session: Session, defined: str) -> None:
    source = (
        PROXY_PROBE
        + defined
        + "\nT() == string.Template.pattern.groupindex\nmine = {}\nT() == mine\n"
        + "print(all(d is not mine for d in got), len(got))"
        + PROXY_WRITE
    )
    execution = session.run(source)
    assert execution.stdout == "True 3\nFalse {}\n", execution.output


@pytest.mark.timeout(60)
def test_a_value_pattern_stays_a_dotted_name(session: Session) -> None:
    execution = session.run(
        "import enum\nclass C(enum.Enum):\n    RED = 1\n"
        "match C.RED:\n    case C.RED:\n        print('red')"
    )
    assert execution.stdout == "red\n", execution.output
    refused = session.run("match 1:\n    case str.format:\n        pass")
    assert refused.error_code == "policy_violation"


# -- what enter() refuses ----------------------------------------------------------


def _frame() -> types.FrameType:
    return sys._getframe()


def _cell() -> object:
    value = 1

    def inner() -> int:
        return value

    assert inner.__closure__ is not None
    return inner.__closure__[0]


REFUSED = {
    "frame": _frame,
    "code": lambda: _frame.__code__,
    "cell": _cell,
    "module": lambda: json,
    "module globals": lambda: vars(json),
    "builtins dict": lambda: vars(builtins),
    "metaclass": lambda: abc.ABCMeta,
    "unbound method of a class no module names": lambda: _local_class().method,
    "the interpreter's eval": lambda: builtins.eval,
    "the interpreter's __import__": lambda: builtins.__import__,
    "the interpreter's getattr": lambda: builtins.getattr,
    "the interpreter's help": lambda: builtins.help,
    "an alias around a metaclass": lambda: types.GenericAlias(abc.ABCMeta, (int,)),
}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_values_no_script_may_hold_are_refused(kind: str) -> None:
    with pytest.raises(ForbiddenOperation, match="cannot be handed to a script"):
        membrane.enter(REFUSED[kind]())


def _local_class() -> type:
    class Local:
        def method(self) -> None:
            pass

    return Local


def test_an_unbound_library_method_takes_its_own_class_objects_only() -> None:
    encode = membrane.enter(json.JSONEncoder.encode)
    assert encode(json.JSONEncoder(), [1]) == "[1]"
    with pytest.raises(ForbiddenOperation, match="applies to 'JSONEncoder' objects only"):
        encode(json.JSONEncoder, [1])
    assert membrane.enter(json.JSONEncoder.encode) is encode  # made once
    assert membrane.enter(json.dumps) is json.dumps  # a module's function is no method


def test_a_registered_namespace_is_refused() -> None:
    namespace: dict[str, object] = {}
    assert membrane.enter(namespace) is namespace
    membrane.register_namespace(namespace)
    with pytest.raises(ForbiddenOperation):
        membrane.enter(namespace)


def test_the_real_type_becomes_the_sandboxs_own() -> None:
    assert membrane.enter(type) is SafeType
    alias = membrane.enter(type[int])  # calling an alias calls its origin
    assert alias.__origin__ is SafeType and alias.__args__ == (int,)
    assert membrane.enter(list[int]) == list[int]
    assert membrane.unpack([type, 2]) == [SafeType, 2]
    with pytest.raises(ForbiddenOperation):
        membrane.unpack((1, _frame()))


def test_harmless_values_pass_as_they_are_and_their_types_are_vetted_once() -> None:
    class Custom:
        pass

    for value in (1, "s", [1], {"a": 1}, (1, 2), Custom(), json.dumps, int, SafeType, None):
        assert membrane.enter(value) is value
    assert Custom in membrane.HARMLESS_TYPES
    assert dict not in membrane.HARMLESS_TYPES  # a namespace is refused by identity
