"""Escapes through imports and module members: each attack must fail and leave no trace.

Every attack that could reach the operating system first reports that it escaped (a
word assembled at run time, so that no traceback line shows it), then tries to read a
secret file, print the environment and create a marker directory. The host's
environment holds a secret too (the zygote starts with an empty one). A test passes
only if the run failed, neither the word nor a secret shows anywhere in the execution,
and the marker does not exist. The word keeps the tests meaningful when the OS layer
(Landlock, seccomp) would stop the reads and writes on its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbox import Execution, Sandbox, SandboxPolicy

ENV_TOKEN = secrets.token_hex(16)


@dataclass
class Target:
    secret: Path
    token: str
    marker: Path

    def fill(self, source: str) -> str:
        return source.replace("SECRET", repr(str(self.secret))).replace(
            "MARKER", repr(str(self.marker))
        )

    def assert_contained(self, execution: Execution) -> None:
        dump = execution.model_dump_json()
        assert "ESCAPED" not in dump, "the script escaped the language layer"
        assert self.token not in dump, "the secret file was read"
        assert ENV_TOKEN not in dump, "the host's environment leaked"
        assert not self.marker.exists(), "the script changed the file system"


@pytest.fixture(scope="module")
def secret_sandbox() -> Iterator[Sandbox]:
    """A default-policy sandbox started while the host's environment holds a secret."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEACT_TEST_SECRET", ENV_TOKEN)
        with Sandbox(SandboxPolicy.preset("default"), spares=1) as sb:
            yield sb


@pytest.fixture
def target(tmp_path: Path) -> Target:
    token = secrets.token_hex(16)
    secret = tmp_path / "secret.txt"
    secret.write_text(f"TOKEN={token}\n")
    return Target(secret, token, tmp_path / "marker")


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


# What a script does with the ``os`` module once it holds it.
USE_OS = """
print('ESC' + 'APED', osm.getpid())
print(osm.read(osm.open(SECRET, osm.O_RDONLY), 4096))
print(osm.environ, osm.read(osm.open('/proc/self/environ', osm.O_RDONLY), 65536))
osm.mkdir(MARKER)
"""

OS_ROUTES = {
    "re.enum.sys": "import re\nosm = re.enum.sys.modules['os']",
    "json.codecs": "import json\nosm = json.codecs.sys.modules['os']",
    "from re import enum": "from re import enum\nosm = enum.sys.modules['os']",
    "import json.tool": "import json.tool\nosm = json.tool.sys.modules['os']",
    "from json import decoder": "from json import decoder\nosm = decoder.re.enum.sys.modules['os']",
    "from json import codecs": "from json import codecs\nosm = codecs.sys.modules['os']",
    "import os.path": "import os.path\nosm = os",
    "import os": "import os\nosm = os",
    "import sys": "import sys\nosm = sys.modules['os']",
    "importlib": "import importlib\nosm = importlib.import_module('os')",
    "__import__": "osm = __import__('os')",
    "open builtin": "print(open('/proc/self/environ').read(), open(SECRET).read())\nosm = None",
    "exec": "exec('import os')\nosm = os",
    "eval": "osm = eval('__import__(\"os\")')",
    "eval by name": "e = eval\nosm = e('__import__(\"os\")')",
    "compile": "c = compile('import os', 'x', 'exec')\nosm = None",
    "builtins dict": "osm = __builtins__['__import__']('os')",
    "relative import": "from . import os\nosm = os",
    "relative parent": "from .. import sys\nosm = sys.modules['os']",
    "star import": "from json import *\nosm = codecs.sys.modules['os']",
    "enum.sys": "import enum\nosm = enum.sys.modules['os']",
    "dataclasses.sys": "import dataclasses\nosm = dataclasses.sys.modules['os']",
    "dataclasses.inspect": "import dataclasses\nosm = dataclasses.inspect.os",
    "typing.sys": "import typing\nosm = typing.sys.modules['os']",
    "typing.collections": "import typing\nosm = typing.collections.sys.modules['os']",
    "decimal.sys": "import decimal\nosm = decimal.sys.modules['os']",
    "statistics.sys": "import statistics\nosm = statistics.sys.modules['os']",
    "statistics.random": "import statistics\nosm = statistics.random._os",
    "datetime.sys": "import datetime\nosm = datetime.sys.modules['os']",
    "random._os": "import random\nosm = getattr(random, '_' + 'os')",
    "string.re": "import string\nosm = string._re.enum.sys.modules['os']",
    "functools.recursive_repr": "import functools\nosm = functools.recursive_repr",
    "copy.dispatch_table": "import copy\nosm = copy.dispatch_table",
    "collections.abc.sys": "import collections.abc\nosm = collections.abc.sys.modules['os']",
    "getattr module globals": (
        "import json\nosm = getattr(json.dumps, '__glo' + 'bals__')['codecs']"
    ),
    "update_wrapper __globals__": (
        "import functools, json\ndef w(): pass\n"
        "functools.update_wrapper(w, json.dumps, (), ('__globals__',))\n"
        "osm = w.codecs.sys.modules['os']"
    ),
    "update_wrapper __dict__": (
        "import functools, json\ndef w(): pass\n"
        "functools.update_wrapper(w, json.dumps, ('__globals__',), ('__dict__',))\n"
        "osm = w.codecs.sys.modules['os']"
    ),
    "wraps __globals__": (
        "import functools, json\n@functools.wraps(json.dumps, ('__globals__',))\ndef w(): pass\n"
        "osm = w.codecs.sys.modules['os']"
    ),
    "attrgetter __globals__": (
        "import operator, json\n"
        "osm = operator.attrgetter('__globals__')(json.dumps)['codecs'].sys.modules['os']"
    ),
    "attrgetter dotted": (
        "import operator, json\n"
        "osm = operator.attrgetter('dumps.__globals__')(json)['codecs'].sys.modules['os']"
    ),
    "methodcaller __reduce_ex__": (
        "import operator\nrt = operator.methodcaller('__reduce_ex__', 4)(print)[1][0]\n"
        "osm = rt.globals['__builtins__']['__import__']('os')"
    ),
    "getattr builtin __self__": (
        "rt = getattr(print, '__self__')\nosm = rt.globals['__builtins__']['__import__']('os')"
    ),
    "dataclass make_dataclass": (
        "import dataclasses\nosm = dataclasses.make_dataclass('X', ['a']).__init__"
    ),
}


@pytest.mark.parametrize("route", list(OS_ROUTES.values()), ids=list(OS_ROUTES))
def test_no_route_to_os(secret_sandbox: Sandbox, target: Target, route: str) -> None:
    execution = run(secret_sandbox, target.fill(route + USE_OS))
    assert execution.error_code in {"policy_violation", "runtime_error"}
    target.assert_contained(execution)


def test_from_import_submodule_refused_by_strict_policy(target: Target) -> None:
    with Sandbox(SandboxPolicy.preset("strict"), spares=0) as strict, strict.session() as s:
        execution = s.run("from collections import abc\nprint('GOT', abc.Mapping)")
        allowed = s.run("import json\nprint(json.dumps([1]))")
    assert execution.error_code == "policy_violation"
    assert "GOT" not in execution.stdout
    assert allowed.stdout == "[1]\n"


# -- code that the standard library would evaluate or execute for the script -------------

# A single expression that, evaluated without the sandbox's rules, runs CODE with the
# real builtins (found through os._wrap_close, a class every interpreter defines).
UNRESTRICTED = (
    "[g['__builtins__']['exec'](CODE, {'__builtins__': g['__builtins__']}) for g in "
    "[c.__init__.__globals__ for c in ().__class__.__base__.__subclasses__() "
    "if c.__name__ == '_wrap_close']]"
)
CODE = (
    "import os\n"
    "leak = 'ESC' + 'APED' + repr(dict(os.environ))\n"
    "try:\n"
    "    leak += open(SECRET).read() + open('/proc/self/environ').read()\n"
    "    leak += open('/proc/%d/environ' % os.getppid()).read()\n"
    "except OSError as exc:\n    leak += repr(exc)\n"
    "try:\n    os.mkdir(MARKER)\nexcept OSError:\n    pass\n"
    "raise KeyError(leak)\n"
)


def unrestricted(target: Target) -> str:
    return UNRESTRICTED.replace("CODE", repr(target.fill(CODE)))


EVALUATED = {
    "singledispatch string annotation": (
        "import functools\n@functools.singledispatch\ndef f(x):\n    return 0\n"
        "def g(x: PAYLOAD_OR_INT):\n    return 1\nf.register(g)\nf(1)"
    ),
    "singledispatch annotation by name": (
        "import functools\n@functools.singledispatch\ndef f(x):\n    return 0\n"
        "hint = PAYLOAD_OR_INT\ndef g(x: hint):\n    return 1\nf.register(g)"
    ),
    "singledispatchmethod dispatcher": (
        "import functools\ndef f(self, x):\n    return 0\n"
        "m = functools.singledispatchmethod(f)\n"
        "def g(self, x: PAYLOAD_OR_INT):\n    return 1\nm.dispatcher.register(g)"
    ),
    "typing.get_type_hints": (
        "import typing\ndef g(x: PAYLOAD_OR_INT):\n    return 1\ntyping.get_type_hints(g)"
    ),
    "typing.ForwardRef": (
        "import typing\ntyping.ForwardRef(PAYLOAD_OR_INT)._evaluate(globals(), None, set())"
    ),
    "dataclass field from TypedDict": (
        "import typing, dataclasses, functools\n"
        "TD = typing.TypedDict('TD', {FIELD: int})\nclass C:\n    pass\n"
        "try:\n    functools.update_wrapper(C, TD)\nexcept AttributeError:\n    pass\n"
        "D = dataclasses.dataclass(init=False, repr=False)(C)\nD() == D()"
    ),
    "dataclass field from enum": (
        "import enum, dataclasses\n"
        "E = enum.Enum('E', [('A', 1), ('__annotations__', {FIELD: int})])\n"
        "D = dataclasses.dataclass(init=False, repr=False)(E)\nD.A == D.A"
    ),
}


@pytest.mark.parametrize("source", list(EVALUATED.values()), ids=list(EVALUATED))
def test_no_string_evaluated_by_the_stdlib(
    secret_sandbox: Sandbox, target: Target, source: str
) -> None:
    payload = unrestricted(target)
    source = source.replace("PAYLOAD_OR_INT", repr(payload + " or int"))
    source = source.replace("FIELD", repr("x if 0 else 1, " + payload))
    execution = run(secret_sandbox, source)
    assert execution.error_code in {"policy_violation", "runtime_error"}
    target.assert_contained(execution)


def test_deepcopy_memo_does_not_expose_the_runtime(secret_sandbox: Sandbox) -> None:
    calls = []
    source = (
        "import copy\nmemo = {}\ntry:\n    copy.deepcopy(print, memo)\n"
        "except TypeError:\n    pass\n"
        "for kept in memo.values():\n    for obj in (kept if type(kept) is list else []):\n"
        "        if type(obj) is dict and 'limits' in obj:\n"
        "            print('FOUND', sorted(obj))\n"
        "            obj['limits']['tool_calls'] = 10 ** 6\n"
        f"for i in range({secret_sandbox.policy.limits.tool_calls + 50}):\n    ping()\n"
    )
    with secret_sandbox.session(tools={"ping": lambda: calls.append(1)}) as session:
        execution = session.run(source)
    assert "FOUND" not in execution.stdout
    assert execution.error_code == "tool_call_limit"
    assert len(calls) == secret_sandbox.policy.limits.tool_calls


SETATTR_ROUTES = {
    "plain store": "json.JSONEncoder.item_separator = ' | '",
    "setattr": "setattr(json.JSONEncoder, 'item_separator', ' | ')",
    "proxy class": "setattr(type(json), 'dumps', lambda *a: ' | ')",
    "update_wrapper module": (
        "import functools\ndef f(): pass\ntry:\n"
        "    functools.update_wrapper(json.JSONEncoder, f)\nexcept AttributeError:\n    pass\n"
        "json.JSONEncoder.item_separator = ' | '"
    ),
    "dataclass of a library class": "import dataclasses\ndataclasses.dataclass(json.JSONEncoder)",
    "enum __reduce_ex__ and copy": (
        "import enum, copy\nstate = {'item_separator': ' | '}\n"
        "E = enum.Enum('E', [('A', 1), ('__copy__', None), "
        "('__reduce_ex__', lambda self, p: (lambda: json.JSONEncoder, (), (None, state)))])\n"
        "copy.copy(E.A)"
    ),
    "ABCMeta __reduce_ex__ and copy": (
        "import typing, copy\nstate = {'item_separator': ' | '}\n"
        "X = typing.ABCMeta('X', (), "
        "{'__reduce_ex__': lambda self, p: (lambda: json.JSONEncoder, (), (None, state))})\n"
        "copy.copy(X())"
    ),
}


@pytest.mark.parametrize("attack", list(SETATTR_ROUTES.values()), ids=list(SETATTR_ROUTES))
def test_library_objects_stay_read_only(sandbox: Sandbox, attack: str) -> None:
    with sandbox.session() as session:
        execution = session.run("import json\n" + attack)
        after = session.run(
            "import json\nE = json.JSONEncoder\nprint(json.dumps([1, 2]), E() == E(), E.__module__)"
        )
    assert execution.error_code in {"policy_violation", "runtime_error"}
    assert after.stdout == "[1, 2] False json.encoder\n"


POISON = [
    "import math\nmath.pi = 3",
    "import math\nsetattr(math, 'pi', 3)",
    "import math\ndelattr(math, 'pi')",
    "import json\njson.dumps = lambda *a, **k: 'poisoned'",
    "import json\nsetattr(type(json), 'dumps', lambda *a, **k: 'poisoned')",
    "import json\njson.JSONEncoder.encode = lambda *a: 'poisoned'",
]


@pytest.mark.parametrize("attack", POISON)
def test_new_sessions_see_clean_modules(sandbox: Sandbox, attack: str) -> None:
    with sandbox.session() as session:
        poisoned = session.run(attack)
    check = "import math, json\nprint(math.pi, json.dumps([1]))"
    with sandbox.session() as session:
        clean = session.run(check)
    assert poisoned.error_code in {"policy_violation", "runtime_error"}
    assert clean.stdout == "3.141592653589793 [1]\n"


def test_in_session_state_does_not_cross_sessions(sandbox: Sandbox) -> None:
    with sandbox.session() as first:
        seeded = first.run(
            "import random, decimal\nrandom.seed(1234)\ndecimal.getcontext().prec = 3\n"
            "print(random.random(), decimal.Decimal(1) / 3)"
        )
    with sandbox.session() as second:
        fresh = second.run("import random, decimal\nprint(random.random(), decimal.Decimal(1) / 3)")
    import random

    seeded_value = random.Random(1234).random()
    assert seeded.stdout == f"{seeded_value} 0.333\n"
    fresh_value, fresh_decimal = fresh.stdout.split()
    assert float(fresh_value) != seeded_value
    assert fresh_decimal == "0.3333333333333333333333333333"


def test_random_is_not_shared_between_workers(sandbox: Sandbox) -> None:
    draws = set()
    for _ in range(3):
        with sandbox.session() as session:
            draws.add(session.run("import random\nprint(random.getrandbits(64))").stdout)
    assert len(draws) == 3


@pytest.mark.parametrize(
    "source",
    [
        "import time\ntime.clock_settime(time.CLOCK_REALTIME, 0)",
        "import time\ngetattr(time, 'clock_' + 'settime')(time.CLOCK_REALTIME, 0)",
        "import time\ntime.tzset()",
    ],
)
def test_clock_cannot_be_set(sandbox: Sandbox, source: str) -> None:
    import time

    before = time.time()
    execution = run(sandbox, source)
    assert execution.error_code == "runtime_error"
    assert "has no attribute" in execution.output.message  # type: ignore[union-attr]
    assert time.time() >= before


def test_tightened_modules_still_serve_scripts(sandbox: Sandbox) -> None:
    source = """
import copy, dataclasses, enum, functools, json, typing
@dataclasses.dataclass(order=True)
class P:
    x: int
    y: int = 0
class Color(enum.Enum):
    RED = 1
    GREEN = enum.auto()
F = enum.Flag('F', 'R W X')
@functools.singledispatch
def kind(v):
    return 'other'
@kind.register
def _(v: int):
    return 'int'
@kind.register(str)
def _(v):
    return 'str'
def deco(f):
    @functools.wraps(f)
    def inner(*a):
        return f(*a)
    return inner
@deco
def double(n):
    return 2 * n
Pt = typing.NamedTuple('Pt', [('a', int)])
print(P(1) < P(2), dataclasses.asdict(P(3)), Color(2).name, F.R | F.W, kind(1), kind('s'),
      kind(1.5), double.__name__, double(4), copy.deepcopy({'k': [1]}), Pt(5),
      isinstance(Color.RED, enum.Enum), issubclass(Color, enum.Enum), json.dumps([1]))
"""
    execution = run(sandbox, source)
    assert execution.error_code is None, execution.output
    assert execution.stdout == (
        "True {'x': 3, 'y': 0} GREEN F.R|W int str other double 8 {'k': [1]} Pt(a=5) "
        "True True [1]\n"
    )
