"""Private names (``_cache``, ``self._items``): the script's own, and nobody else's.

Model-written code keeps state in ``self._x`` and names helpers ``_helper``. Such names
compile; a private attribute is read through the run-time guard, which allows it only
on members the script defined (in its class bodies, on its instances, on its functions)
— never on modules, library objects or builtins, nor members a script class inherits
from a library class. Dunders, ``__mangled`` and ``_sunder_`` names stay refused.
"""

from __future__ import annotations

import pytest

from sandbox import Execution, FinalResult, Sandbox


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


def test_the_scripts_own_private_names_work(sandbox: Sandbox) -> None:
    source = """
import json as _json
from collections import namedtuple

class Account:
    _registry = []

    def __init__(self, owner):
        self._owner = owner
        self._balance = 0
        Account._registry.append(self)

    @property
    def balance(self):
        return self._balance

    def _apply(self, amount):
        self._balance += amount

    def deposit(self, amount):
        self._apply(amount)
        return self

class Savings(Account):
    def describe(self):
        return f"{self._owner}: {super().balance}"

def _helper(x):
    return x * 2

_helper._calls = 1
_helper._calls += 1
acct = Savings("ann").deposit(_helper(21))
setattr(acct, "_note", "vip")
Point = namedtuple("Point", "x y")
p = Point(1, 2)._replace(y=5)
final_result([
    acct.balance, acct.describe(), getattr(acct, "_note"), hasattr(acct, "_missing"),
    len(Account._registry), _helper._calls, p._asdict(), "{0._owner}".format(acct),
    _json.dumps([1]),
])
"""
    execution = run(sandbox, source)
    assert execution.output == FinalResult(
        value=[42, "ann: 42", "vip", False, 1, 2, {"x": 1, "y": 5}, "ann", "[1]"]
    ), execution.output


@pytest.mark.parametrize(
    "attempt",
    [
        "import random\nrandom._inst",
        "import random\ngetattr(random, '_inst')",
        "import json\njson._default_encoder",
        "import json\n'{0._default_encoder}'.format(json)",
        "import re\nre._compile('a', 0)",
        "import datetime\ndatetime.date(2020, 1, 1)._x",
        "len._x",
        "(1)._x",
        "import collections\ncollections.Counter()._keep_positive()",
        "x = [1]\nsetattr(x, '_y', 1)",
        "import decimal\nsetattr(decimal.getcontext(), '_x', 1)",
    ],
)
def test_private_attributes_of_anything_else_are_refused(sandbox: Sandbox, attempt: str) -> None:
    execution = run(sandbox, attempt)
    assert execution.error_code in ("policy_violation", "runtime_error"), execution.output
    assert "_" in execution.output.message  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("class A:\n    def f(self):\n        return self.__secret", "__secret"),
        ("x = object\nx._sunder_", "_sunder_"),
        ("_getattr_ = 1", "_getattr_"),
        ("from random import _os", "_os"),
        ("import _thread", "_thread"),
    ],
)
def test_other_underscore_names_are_still_refused_at_compile_time(
    sandbox: Sandbox, source: str, needle: str
) -> None:
    execution = run(sandbox, source)
    assert execution.error_code == "policy_violation"
    assert needle in execution.output.message  # type: ignore[union-attr]


def test_private_members_inherited_from_a_library_class_are_not_the_scripts(
    sandbox: Sandbox,
) -> None:
    # The script's subclass owns the private names it defines, not its library base's.
    source = """
import random
class R(random.Random):
    def __init__(self, seed):
        super().__init__(seed)
        self._mine = 1
    def _helper(self):
        return self._mine + 1
r = R(1)
try:
    r._randbelow(10)
    inherited = "read"
except AttributeError:
    inherited = "refused"
final_result([r._helper(), r._mine, inherited, r.randrange(10) < 10])
"""
    execution = run(sandbox, source)
    assert execution.output == FinalResult(value=[2, 1, "refused", True]), execution.output


def test_no_exposed_class_keeps_a_module_frame_or_code_under_a_private_name() -> None:
    import types

    from sandbox import SandboxPolicy
    from sandbox.worker.language.compiler import is_private_name
    from sandbox.worker.language.guards import builtin_catalog
    from sandbox.worker.language.modules import build_proxies

    config = SandboxPolicy.preset("default").worker_config()
    exposed = [*builtin_catalog().values()]
    for proxy in build_proxies(config["modules"], {}).values():
        exposed += [getattr(proxy, name) for name in dir(proxy) if not name.startswith("__")]
    assert sum(isinstance(c, type) for c in exposed) > 50
    dangerous = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)
    found = [
        f"{klass.__qualname__}.{name}"
        for cls in exposed
        if isinstance(cls, type)
        for klass in cls.__mro__
        for name, value in vars(klass).items()
        if is_private_name(name) and isinstance(value, dangerous)
    ]
    assert not found
