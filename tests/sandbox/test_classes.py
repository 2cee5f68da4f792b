"""Which classes a script may subclass, what ``type(x)`` hands out, whose private names."""

from __future__ import annotations

import pytest

from sandbox import Execution, FinalResult, Sandbox
from sandbox.worker.language.classes import subclassable


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


def test_classes_meant_to_be_subclassed_can_be(sandbox: Sandbox) -> None:
    source = """
import abc, collections, collections.abc, dataclasses, datetime, enum, fractions, json
import random, string, typing

T = typing.TypeVar("T")
class E(ValueError): pass
class D(json.JSONDecodeError): pass
class TE(ToolError): pass
class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...
class Sq(Shape):
    def area(self):
        return 4
class M(collections.abc.Mapping):
    def __getitem__(self, k):
        return 1
    def __iter__(self):
        return iter(["a"])
    def __len__(self):
        return 1
class L(list): pass
class S(str): pass
class I(int): pass
class O(collections.OrderedDict): pass
class C(collections.Counter): pass
class DD(collections.defaultdict): pass
class U(collections.UserDict): pass
class Color(enum.Enum):
    RED = 1
class Perm(enum.IntFlag):
    R = 4
class P(typing.NamedTuple):
    x: int
    y: int = 0
class TD(typing.TypedDict, total=False):
    a: int
@typing.runtime_checkable
class HasLen(typing.Protocol):
    def __len__(self) -> int: ...
class Box(typing.Generic[T]):
    def __init__(self, item: T):
        self.item = item
class Ints(typing.List[int]): pass
class Enc(json.JSONEncoder):
    def default(self, o):
        return str(o)
class UTC(datetime.tzinfo):
    def utcoffset(self, dt):
        return datetime.timedelta(0)
class R(random.Random): pass
class Tpl(string.Template):
    delimiter = "%"
class F(fractions.Fraction): pass
@dataclasses.dataclass
class Base:
    a: int
@dataclasses.dataclass
class Child(Base):
    b: int = 2
final_result([
    str(E("e")), Sq().area(), dict(M()), L([1]) + [2], S("s").upper(), I(3) + 1,
    list(O(a=1)), C("aab")["a"], DD(int)["x"], U(a=1)["a"], Color.RED.value, int(Perm.R),
    P(1)._replace(y=5)._asdict(), TD(a=1), isinstance([], HasLen), Box(3).item, Ints([1]),
    json.dumps({1j}, cls=Enc), UTC().utcoffset(None).seconds, R(1).random() < 1,
    Tpl("%x").substitute(x=1), str(F(1, 2)), Child(1).b, issubclass(TE, Exception),
    issubclass(D, ValueError),
])
"""
    execution = run(sandbox, source)
    assert execution.output == FinalResult(
        value=[
            "e",
            4,
            {"a": 1},
            [1, 2],
            "S",
            4,
            ["a"],
            2,
            0,
            1,
            1,
            4,
            {"x": 1, "y": 5},
            {"a": 1},
            True,
            3,
            [1],
            '"{1j}"',
            0,
            True,
            "1",
            "1/2",
            2,
            True,
            True,
        ]
    ), execution.output


@pytest.mark.parametrize(
    "base",
    [
        "type(typing.List[int])",
        "type(typing.get_args(typing.List['x'])[0])",
        "type(json)",
        "type(abc.ABC)",
        "type",
        "property",
        "staticmethod",
        "functools.partial",
        "decimal.Context",
        "type(json.JSONDecoder().scan_once)",
        "typing.SupportsInt",
    ],
)
def test_other_classes_cannot_be_subclassed(sandbox: Sandbox, base: str) -> None:
    source = f"import typing, json, abc, functools, decimal\nclass X({base}):\n    pass\n"
    execution = run(sandbox, source + "print('BUILT')")
    assert execution.error_code == "policy_violation", execution.output
    assert "BUILT" not in execution.stdout


def test_type_of_a_library_internal_object_is_a_stand_in(sandbox: Sandbox) -> None:
    source = """
import typing, json
t = type(typing.List[int])
s = type(json.JSONDecoder().scan_once)
try:
    t(list, int)
    built = True
except TypeError:
    built = False
final_result([t.__name__, isinstance(typing.List[int], t), built, s.__name__,
              type([]) is list, type(json.JSONDecodeError("m", "d", 0)) is json.JSONDecodeError])
"""
    execution = run(sandbox, source)
    assert execution.output == FinalResult(
        value=["_GenericAlias", True, False, "Scanner", True, True]
    ), execution.output


@pytest.mark.parametrize(
    "attempt",
    [
        "import abc\nclass K(abc.ABC):\n    pass\nK._abc_impl",
        "import abc\nclass K(abc.ABC):\n    pass\nK._dump_registry()",
        "import typing\nclass P(typing.Protocol):\n    pass\nP._is_protocol",
        "import abc\nclass K(abc.ABC):\n    pass\nK._abc_impl = 1",
        "import fractions\nclass F(fractions.Fraction):\n    def f(self):\n"
        "        self._numerator = 10\nF(1).f()",
    ],
)
def test_private_names_library_code_put_on_a_script_class_are_not_its_own(
    sandbox: Sandbox, attempt: str
) -> None:
    execution = run(sandbox, attempt)
    assert execution.error_code == "policy_violation", execution.output


def test_only_the_scripts_own_abcs_take_registrations(sandbox: Sandbox) -> None:
    own_abc = "import abc\nclass K(abc.ABC):\n    pass\nK.register(int)\n"
    with sandbox.session() as session:
        library = session.run("import collections.abc\ncollections.abc.Sized.register(int)")
        own = session.run(own_abc + "final_result(isinstance(1, K))")
        after = session.run(
            "import collections.abc\nfinal_result(isinstance(1, collections.abc.Sized))"
        )
    assert library.error_code == "policy_violation", library.output
    assert own.output == FinalResult(value=True), own.output
    assert after.output == FinalResult(value=False)


def test_the_functional_enum_mixes_in_only_subclassable_classes(sandbox: Sandbox) -> None:
    with sandbox.session() as session:
        refused = session.run(
            "import enum, textwrap\nenum.Enum('E', 'a b', type=textwrap.TextWrapper)"
        )
        allowed = session.run(
            "import enum\nE = enum.Enum('E', 'a b', type=int)\nfinal_result(E.b + 1)"
        )
    assert refused.error_code == "policy_violation", refused.output
    assert allowed.output == FinalResult(value=3), allowed.output


def test_stand_ins_are_never_subclassable() -> None:
    from sandbox.worker.language.classes import SafeType, safe_type

    class Internal:
        pass

    assert not subclassable(safe_type(Internal()))
    assert not subclassable(SafeType)
    assert subclassable(ValueError) and subclassable(dict)


def test_private_members_through_super_and_overrides(sandbox: Sandbox) -> None:
    source = """
import random
class B:
    def _h(self):
        return 1
class C(B):
    def _h(self):
        return super()._h() + 1
class Own(random.Random):
    def _randbelow(self, n):
        return 0
class Inherits(random.Random):
    def f(self):
        return super()._randbelow(5)
try:
    Inherits(1).f()
    through_super = "read"
except AttributeError:
    through_super = "refused"
final_result([C()._h(), Own(1)._randbelow(9), through_super])
"""
    execution = run(sandbox, source)
    assert execution.output == FinalResult(value=[2, 0, "refused"]), execution.output
