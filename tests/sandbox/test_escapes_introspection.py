"""Escapes through introspection: frames, str.format, dunders and the guards' names.

Each attack, if it worked, would run code with a sandbox module's real builtins (which
reports a word assembled at run time and tries to read a secret file), print a marker,
or change the state later runs see. A test passes only if the run failed and that effect
is absent.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from sandbox import Execution, Sandbox


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


def failed(execution: Execution) -> bool:
    return execution.error_code in {"policy_violation", "runtime_error"}


# -- frames ---------------------------------------------------------------------------

# ``attr(obj, name)`` is the route under test; the walk climbs from a running generator's
# frame to the sandbox's own frames and runs code with their builtins.
FRAME_WALK = """
def gen():
    fr = attr(me[0], 'gi_frame')
    while fr is not None:
        glb = attr(fr, 'f_globals')
        if 'ScriptRuntime' in glb:
            code = READ
            glb['__builtins__']['exec'](code, {'__builtins__': glb['__builtins__']})
        fr = attr(fr, 'f_back')
    yield 1
me = [gen()]
next(me[0])
"""
READ = (
    "try:\n    leak = open(SECRET).read()\nexcept OSError as exc:\n    leak = repr(exc)\n"
    "raise KeyError('ESC' + 'APED' + leak)\n"
)
MATCH_CLASSES = """
import collections.abc, dataclasses
class Base(collections.abc.Sized):
    pass
@dataclasses.dataclass
class GI(Base):
    gi_frame: int = 0
@dataclasses.dataclass
class FB(Base):
    f_back: int = 0
@dataclasses.dataclass
class FG(Base):
    f_globals: int = 0
"""
FRAME_ROUTES = {
    "native attribute": "def attr(o, n):\n    return o.gi_frame if n == 'gi_frame' else o.f_back",
    "getattr": "def attr(o, n):\n    return getattr(o, n)",
    "getattr built name": "def attr(o, n):\n    return getattr(o, n[:2] + n[2:])",
    "hasattr then getattr": "def attr(o, n):\n    return hasattr(o, n) and getattr(o, n)",
    "attrgetter": "import operator\ndef attr(o, n):\n    return operator.attrgetter(n)(o)",
    "match keyword": "def attr(o, n):\n    match o:\n        case object(gi_frame=v):\n"
    "            return v",
    "match positional dataclass": MATCH_CLASSES
    + "def attr(o, n):\n    cls = {'gi_frame': GI, 'f_back': FB, 'f_globals': FG}[n]\n"
    "    cls.register(type(o))\n    match o:\n        case cls(v):\n            return v",
    "match positional namedtuple": (
        "import collections, collections.abc\ndef attr(o, n):\n"
        "    class T(collections.namedtuple('T', [n]), collections.abc.Sized):\n"
        "        pass\n    T.register(type(o))\n    match o:\n        case T(v):\n"
        "            return v"
    ),
    "match class changed after the check": MATCH_CLASSES
    + "@dataclasses.dataclass\nclass Safe(Base):\n    pass\ndef attr(o, n):\n"
    "    if n == 'gi_frame':\n        class Late(Safe):\n            gi_frame: int = 0\n"
    "    elif n == 'f_back':\n        class Late(Safe):\n            f_back: int = 0\n"
    "    else:\n        class Late(Safe):\n            f_globals: int = 0\n"
    "    Late.register(type(o))\n    match o:\n"
    "        case Base() if dataclasses.dataclass(Late) and False:\n            pass\n"
    "        case Late(v):\n            return v",
    "__exit__ traceback": (
        "class Grab:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, t, v, tb):\n        self.tb = tb\n        return True\n"
        "def attr(o, n):\n    if n == 'gi_frame':\n        with Grab() as g:\n"
        "            1 / 0\n        return getattr(g.tb, 'tb_frame')\n    return getattr(o, n)"
    ),
}


@pytest.mark.parametrize("route", list(FRAME_ROUTES.values()), ids=list(FRAME_ROUTES))
def test_no_frame_walk(sandbox: Sandbox, tmp_path: Path, route: str) -> None:
    token = secrets.token_hex(16)
    secret = tmp_path / "secret"
    secret.write_text(token)
    code = READ.replace("SECRET", repr(str(secret)))
    source = route + FRAME_WALK.replace("READ", repr(code))
    execution = run(sandbox, source)
    assert failed(execution)
    assert "ESCAPED" not in execution.model_dump_json()
    assert token not in execution.model_dump_json()


@pytest.mark.parametrize(
    "source",
    [
        "def g():\n    yield 1\nx = g()\nx.gi_frame.f_back",
        "def g():\n    yield 1\nx = g()\nx.gi_code",
        "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame",
        "try:\n    1 / 0\nexcept Exception as e:\n    getattr(e, '__trace' + 'back__')",
        "try:\n    1 / 0\nexcept Exception as e:\n    e.__context__",
        "match 1:\n    case int(__class__=c):\n        pass",
        "def g():\n    yield 1\nmatch g():\n    case object(gi_frame=f):\n        pass",
    ],
)
def test_frame_attributes_refused(sandbox: Sandbox, source: str) -> None:
    execution = run(sandbox, source + "\nprint('GOT')")
    assert failed(execution)
    assert "GOT" not in execution.stdout


# -- str.format -----------------------------------------------------------------------

OPEN = "{0.__globals__[__builtins__][open]}"
FORMAT_ROUTES = {
    "bound": f"print('{OPEN}'.format(getattr))",
    "unbound": f"print(str.format('{OPEN}', getattr))",
    "format_map": "print('{a.__globals__[__builtins__][open]}'.format_map({'a': getattr}))",
    "nested spec": "print('{0:{1.__globals__[__builtins__][open]}}'.format(1, getattr))",
    "class chain": "print('{0.__class__.__base__.__subclasses__}'.format(1))",
    "getattr": f"print(getattr('{OPEN}', 'format')(getattr))",
    "methodcaller": f"import operator\nprint(operator.methodcaller('format', getattr)('{OPEN}'))",
    "str subclass": f"class S(str):\n    pass\nprint(S('{OPEN}').format(getattr))",
    "super bound": f"class S(str):\n    pass\nprint(super(S, S('{OPEN}')).format(getattr))",
    "super unbound": f"class S(str):\n    pass\nprint(super(S, S).format('{OPEN}', getattr))",
    "super in method": "class S(str):\n    def f(self, *a):\n        return super().format(*a)\n"
    f"print(S('{OPEN}').f(getattr))",
    "augmented assignment": "class S(str):\n    pass\nclass Grab:\n"
    "    def __radd__(self, other):\n        print(other(getattr))\n        return 0\n"
    f"s = S('{OPEN}')\ns.format += Grab()",
    "match positional": "import collections.abc, dataclasses\n"
    "@dataclasses.dataclass\nclass F(collections.abc.Sized):\n    format: int = 0\n"
    f"F.register(str)\nmatch '{OPEN}':\n    case F(f):\n        print(f(getattr))",
}


@pytest.mark.parametrize("route", list(FORMAT_ROUTES.values()), ids=list(FORMAT_ROUTES))
def test_format_cannot_walk_attributes(sandbox: Sandbox, route: str) -> None:
    execution = run(sandbox, route)
    assert failed(execution)
    dump = execution.model_dump_json()
    assert "built-in function open" not in dump
    assert "__subclasses__ of type" not in dump


def test_format_still_formats(sandbox: Sandbox) -> None:
    source = (
        "x = 3.14159\nclass P:\n    def __init__(self):\n        self.v = 7\n"
        "print('{:.2f}'.format(x), '{0.v}|{p.v}'.format(P(), p=P()), str.format('{}!', 1),\n"
        "      '{n[0]}'.format_map({'n': [5]}), f'{x:>8.3f}', '{0.real:{1}}'.format(2, 'd'))"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "3.14 7|7 1! 5    3.142 2\n"


def test_class_patterns_still_match(sandbox: Sandbox) -> None:
    source = """
import dataclasses, enum, typing
@dataclasses.dataclass
class P:
    x: int
    y: int = 0
Pt = typing.NamedTuple('Pt', [('a', int), ('b', int)])
def where(v):
    match v:
        case P(0, y) | Pt(0, y):
            return ('axis', y)
        case [P(x, _), *rest]:
            return ('list', x, len(rest))
        case int(n) if n > 1:
            return ('int', n)
    return None
class Mode(enum.Enum):
    A = 1
    match P(1, 2):
        case P(x, y):
            B = x + y
print(where(P(0, 3)), where(Pt(0, 4)), where([P(5), P(6)]), where(7), Mode.B.value, list(Mode))
"""
    execution = run(sandbox, source)
    assert execution.error_code is None, execution.output
    assert execution.stdout == (
        "('axis', 3) ('axis', 4) ('list', 5, 1) ('int', 7) 3 "
        "[<Mode.A: 1>, <Mode.y: 2>, <Mode.B: 3>]\n"
    )


# -- exceptions, type(), mro -------------------------------------------------------------

OBJ_ROUTES = {
    "native": "print('OBJ:', e.obj)",
    "getattr": "print('OBJ:', getattr(e, 'obj'))",
    "format": "print('OBJ:' + '{0.obj}'.format(e))",
    "attrgetter": "import operator\nprint('OBJ:', operator.attrgetter('obj')(e))",
    "super": "print('OBJ:', super(type(e), e).obj)",
    "match keyword": "match e:\n    case AttributeError(obj=o):\n        print('OBJ:', o)",
}


@pytest.mark.parametrize("route", list(OBJ_ROUTES.values()), ids=list(OBJ_ROUTES))
def test_attribute_error_obj_hidden(sandbox: Sandbox, route: str) -> None:
    indented = route.replace("\n", "\n    ")
    source = f"import math\ntry:\n    math.nope\nexcept AttributeError as e:\n    {indented}"
    execution = run(sandbox, source)
    assert failed(execution)
    assert "OBJ:" not in execution.stdout


CLASS_FACTORIES = {
    "type": "X = type('X', (), {'__getattr__': len})",
    "type of int": "X = type(int)('X', (), {})",
    "type of type": "X = type(type(int))('X', (), {})",
    "__class__ chain": "X = (1).__class__.__class__('X', (), {})",
    "getattr __class__": "X = getattr(getattr(1, '__class__'), '__class__')('X', (), {})",
    "typing.ABCMeta": "import typing\nX = typing.ABCMeta('X', (), {'__del__': len})",
    "typing.NamedTupleMeta": "import typing\nX = typing.NamedTupleMeta('X', (), {})",
    "enum metaclass": "import enum\nX = type(enum.Enum)('X', (), {})",
    "enum functional dunders": "import enum\nX = enum.Enum('X', {'A': 1, '__reduce_ex__': len})",
    "enum functional sunder": "import enum\nX = enum.Enum('X', [('A', 1), ('_missing_', len)])",
    "metaclass keyword": "import typing\nclass X(metaclass=type):\n    pass",
    "build_class metaclass": "import collections.abc\nX = collections.abc.Sized.__init_subclass__",
    "make_dataclass": "import dataclasses\nX = dataclasses.make_dataclass('X', ['a'])",
}


@pytest.mark.parametrize("route", list(CLASS_FACTORIES.values()), ids=list(CLASS_FACTORIES))
def test_no_class_from_a_namespace(sandbox: Sandbox, route: str) -> None:
    execution = run(sandbox, route + "\nprint('CREATED', X)")
    assert failed(execution)
    assert "CREATED" not in execution.stdout


@pytest.mark.parametrize(
    "route",
    [
        "int.mro()",
        "getattr(int, 'mro')()",
        "class A:\n    pass\nA.mro()",
        "class A:\n    pass\nclass G:\n    def __radd__(self, o):\n        print('GOT', o())\n"
        "A.mro += G()",
        "(1).__class__.__base__",
        # ``object`` is a builtin (a base, an annotation, a sentinel); what made it a
        # route is out of reach.
        "object.__subclasses__()",
        "getattr(object, '__subclasses__')()",
        "object.__new__(type(print))",
        "object.__getattribute__(print, '__self__')",
        "import operator\noperator.methodcaller('mro')(int)",
    ],
)
def test_no_route_to_object(sandbox: Sandbox, route: str) -> None:
    lines = route.splitlines()
    lines[-1] = f"print('GOT', {lines[-1]})" if "GOT" not in route else lines[-1]
    execution = run(sandbox, "\n".join(lines))
    assert failed(execution)
    assert "GOT" not in execution.stdout


@pytest.mark.parametrize(
    "route",
    [
        "__builtins__",
        "print.__self__",
        "getattr(print, '__self__')",
        "getattr(final_result, '__sel' + 'f__')",
        "print.__func__.__globals__",
        "getattr.__globals__",
        "getattr(getattr, '__globals__')",
        "globals()",
        "vars()",
        "dir()",
        "locals()",
    ],
)
def test_no_route_to_the_runtime(sandbox: Sandbox, route: str) -> None:
    lines = route.splitlines()
    lines[-1] = f"found = {lines[-1]}\nprint('FOUND', found)"
    execution = run(sandbox, "\n".join(lines))
    assert "FOUND" not in execution.stdout
    assert "ScriptRuntime" not in execution.model_dump_json() or failed(execution)
    assert failed(execution)


# -- guards cannot be shadowed ---------------------------------------------------------

SHADOWS = {
    "positional-only": "def f(_write_=lambda o: o, /):\n    BODY\nf()",
    "positional-only _getattr_": "def f(_getattr_=lambda o, n: o, /):\n    BODY\nf()",
    "lambda _reraise_control_": "f = lambda _reraise_control_=None: 1\nBODY",
    "keyword-only": "def f(*, _write_=lambda o: o):\n    BODY\nf()",
    "star args": "def f(*_write_):\n    BODY\nf()",
    "lambda default": "f = lambda _write_=lambda o: o: exec_body()",
    "for target": "for _write_ in [lambda o: o]:\n    BODY",
    "with target": "class C:\n    def __enter__(self):\n        return lambda o: o\n"
    "    def __exit__(self, *a):\n        pass\nwith C() as _write_:\n    BODY",
    "walrus": "if (_write_ := lambda o: o):\n    BODY",
    "comprehension": "[exec_body() for _write_ in [lambda o: o]]",
    "except as": "try:\n    1 / 0\nexcept Exception as _write_:\n    BODY",
    "import as": "import json as _write_\nBODY",
    "match capture": "match (lambda o: o):\n    case _write_:\n        BODY",
    "global": "def f():\n    global _write_\n    _write_ = lambda o: o\n    BODY\nf()",
    "class body": "class C:\n    _write_ = lambda o: o\n    BODY",
    "builtins": "__builtins__['_write_'] = lambda o: o\nBODY",
}


@pytest.mark.parametrize("source", list(SHADOWS.values()), ids=list(SHADOWS))
def test_guards_cannot_be_shadowed(sandbox: Sandbox, source: str) -> None:
    body = "json.JSONEncoder.item_separator = ' | '"
    with sandbox.session() as session:
        execution = session.run("import json\n" + source.replace("BODY", body))
        after = session.run("import json\nprint(json.dumps([1, 2]))")
    assert execution.error_code == "policy_violation"
    assert after.stdout == "[1, 2]\n"


@pytest.mark.parametrize(
    "hook",
    [
        "__reduce__(self)",
        "__reduce_ex__(self, proto)",
        "__getattribute__(self, name)",
        "__class__(self)",
        "__del__(self)",
        "__instancecheck__(cls, obj)",
        "__mro_entries__(self, bases)",
    ],
)
def test_hooks_cannot_be_defined(sandbox: Sandbox, hook: str) -> None:
    source = f"class A:\n    def {hook}:\n        print('HOOK')\nclass B(A, x=1):\n    pass\n"
    execution = run(sandbox, source + "import copy\nB.x = B()\ncopy.copy(B.x)\nisinstance(1, B)")
    assert execution.error_code == "policy_violation"
    assert "HOOK" not in execution.stdout
