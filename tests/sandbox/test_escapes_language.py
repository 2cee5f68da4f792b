"""The language layer's six known holes, each tried for real, with the OS layer off and on.

Each attack, if it worked, would print a word assembled at run time, the host's
environment secret (visible to the worker once the OS layer is off) or the worker's
limits, or would leave a library object changed for the next script. A test passes only
if none of that happens. With ``os`` off the language layer is all that stands.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from sandbox import Execution, Sandbox, SandboxPolicy

ENV_TOKEN = secrets.token_hex(16)
DEFAULT = SandboxPolicy.preset("default")
LAYERS = {"language only": DEFAULT.with_layers(os=False), "all layers": DEFAULT}


@pytest.fixture(scope="module", params=list(LAYERS))
def box(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEACT_TEST_SECRET", ENV_TOKEN)
        with Sandbox(LAYERS[request.param], spares=0) as sb:
            yield sb


def assert_contained(execution: Execution) -> None:
    dump = execution.model_dump_json()
    assert "ESCAPED" not in dump, "the script escaped the language layer"
    assert ENV_TOKEN not in dump, "the host's environment leaked"
    assert "cpu_soft_s" not in dump, "the worker's limits leaked"
    assert "built-in function open" not in dump, "the real open leaked"
    assert execution.error_code in {"policy_violation", "runtime_error"}, execution.output


# What a script does with the worker's real builtins (a module's ``__builtins__`` dict).
PAYLOAD = """
print("ESC" + "APED")
print(bi["__import__"]("os").environ.get("CODEACT_TEST_SECRET"))
"""

MANGLED_HIDDEN_NAME = """
import abc, dataclasses
@dataclasses.dataclass
class KG(abc.ABC):
    gi_frame: int = 0
@dataclasses.dataclass
class KB(abc.ABC):
    f_back: int = 0
@dataclasses.dataclass
class KL(abc.ABC):
    f_globals: int = 0
@dataclasses.dataclass
class Decoy:
    v: int = 0
class R:
    def read(self, obj, K):
        K.register(type(obj))
        match obj:
            case K() if (_R__match_class_1_1 := K) and False:
                pass
            case Decoy(v):
                return v
r = R()
found = []
def gen():
    frame = r.read(g, KG)
    while frame is not None:
        glob = r.read(frame, KL)
        if str(glob.get("__name__", "")).startswith("sandbox"):
            found.append(glob["__builtins__"])
            break
        frame = r.read(frame, KB)
    yield 1
g = gen()
next(g)
bi = found[0]
"""

HOLES = {
    "1 mangled hidden name": MANGLED_HIDDEN_NAME + PAYLOAD,
    "2 str subclass format": """
import json
class S(str):
    def __contains__(self, item):
        return False
print(S("{0.__globals__[__builtins__][open]}").format(json.dumps))
""",
    "2 str subclass limits": """
class S(str):
    def __contains__(self, item):
        return False
print(S("{0.__self__.limits}").format(final_result))
""",
    "2 str subclass environ": """
import dataclasses
class S(str):
    def __contains__(self, item):
        return False
print(S("{0.__globals__[sys].modules[os].environ}").format(dataclasses.fields))
""",
    "2 str subclass format_map": """
import dataclasses
class S(str):
    def __contains__(self, item):
        return False
print(S("{f.__globals__[sys].modules[os].environ}").format_map({"f": dataclasses.fields}))
""",
    "2 unbound str.format on a subclass": """
import dataclasses
class S(str):
    def __contains__(self, item):
        return False
print(str.format(S("{0.__globals__[sys].modules[os].environ}"), dataclasses.fields))
""",
    "2 super().format in a subclass": """
import dataclasses
class S(str):
    def __contains__(self, item):
        return False
    def show(self, value):
        return super().format(value)
print(S("{0.__globals__[sys].modules[os].environ}").show(dataclasses.fields))
""",
    "3 mapping rest rebinds the builtins": """
match {"a": 1}:
    case {**__builtins__}:
        pass
print("ESC" + "APED")
""",
    "3 mapping rest rebinds a guard": """
match {"a": 1}:
    case {**_getattr_}:
        pass
print("ESC" + "APED")
""",
    "3 mapping rest dunder fields": """
import dataclasses, copy
@dataclasses.dataclass
class D:
    match {"__deepcopy__": int}:
        case {**__annotations__}:
            pass
print("ESC" + "APED")
""",
    "4 class keyword _root": """
import typing, copy
class G(type(typing.List[int]), _root=True): pass
imp = copy.copy(G(list, "__import__", name="__builtins__"))
os = imp("os")
print("ESC" + "APED", os.environ.get("CODEACT_TEST_SECRET"))
""",
    "4 class keyword splat": """
import typing, copy
class G(type(typing.List[int]), **{"_root": True}): pass
imp = copy.copy(G(list, "__import__", name="__builtins__"))
print("ESC" + "APED", imp("os").environ.get("CODEACT_TEST_SECRET"))
""",
    "4 internal class without keyword": """
import typing
class G(type(typing.List[int])): pass
print("ESC" + "APED")
""",
    "5 forward ref subclass": """
import typing
class F(type(typing.get_args(typing.List["x"])[0]), _root=True): pass
F("__import__('os').environ['CODEACT_TEST_SECRET']")._evaluate(None, None, frozenset())
""",
    "5 forward ref subclass no keyword": """
import typing
class F(type(typing.get_args(typing.List["x"])[0])): pass
print(F("__import__('os').environ['CODEACT_TEST_SECRET']")._evaluate(None, None, frozenset()))
""",
    "5 inherited private method": """
import random
class R(random.Random):
    pass
print(R(1)._randbelow(10))
print("ESC" + "APED")
""",
    "5 type of a stand-in": """
import json
class X(type(json)):
    pass
print(X._sandbox_target, "ESC" + "APED")
""",
}


@pytest.mark.parametrize("source", list(HOLES.values()), ids=list(HOLES))
def test_hole_is_closed(box: Sandbox, source: str) -> None:
    with box.session() as session:
        execution = session.run(source)
        after = session.run("import json\nprint(json.dumps([1, 2]))")
    assert_contained(execution)
    assert after.stdout == "[1, 2]\n"


def test_names_spelled_like_the_old_hidden_ones_are_ordinary_variables(box: Sandbox) -> None:
    source = """
class R:
    def read(self, obj):
        match obj:
            case 1 if (_R__match_class_1_1 := int) and False:
                pass
            case 2 if (_R__match_subject_1 := 5):
                pass
            case str(v):
                return v
final_result(R().read("x"))
"""
    with box.session() as session:
        execution = session.run(source)
    assert execution.error_code is None, execution.output
    assert execution.output.value == "x"  # type: ignore[union-attr]


def test_hidden_match_names_stay_out_of_an_enum_body(box: Sandbox) -> None:
    source = """
import enum
class Color(enum.Enum):
    RED = 1
    match "q":
        case str(s):
            pass
final_result([c.name for c in Color])
"""
    with box.session() as session:
        execution = session.run(source)
    assert execution.output.value == ["RED", "s"], execution.output  # type: ignore[union-attr]


LIBRARY_CHANGES = {
    "6 abstractmethod": "import abc, json\nabc.abstractmethod(json.dumps)",
    "6 abstractclassmethod": "import abc, json\nabc.abstractclassmethod(json.loads)",
    "6 final": "import typing, json\ntyping.final(json.loads)",
    "6 no_type_check": "import typing, json\ntyping.no_type_check(json.loads)",
    "6 no_type_check class": "import typing, json\ntyping.no_type_check(json.JSONEncoder)",
    "6 no_type_check_decorator": (
        "import typing, json\ntyping.no_type_check_decorator(lambda f: json.loads)(1)"
    ),
    "6 dataclass_transform": "import typing, json\ntyping.dataclass_transform()(json.loads)",
    "6 runtime_checkable": "import typing\ntyping.runtime_checkable(typing.SupportsInt)",
    "6 total_ordering": "import functools, fractions\nfunctools.total_ordering(fractions.Fraction)",
    "6 update_wrapper": "import functools, json\nfunctools.update_wrapper(json.loads, print)",
    "4 generic alias store": (
        "import typing, json\n"
        "class G(type(typing.List[int]), _root=True): pass\n"
        "G(json.JSONEncoder, int).item_separator = '!!'"
    ),
}


@pytest.mark.parametrize("source", list(LIBRARY_CHANGES.values()), ids=list(LIBRARY_CHANGES))
def test_library_objects_are_not_marked(box: Sandbox, source: str) -> None:
    check = """
import abc, json
class A(abc.ABC):
    f = json.dumps
A()
print(json.dumps([1, 2]))
"""
    with box.session() as session:
        execution = session.run(source)
        after = session.run(check)
    assert execution.error_code in {"policy_violation", "runtime_error"}, execution.output
    assert after.stdout == "[1, 2]\n", after.output


def test_library_objects_keep_their_attributes_in_process() -> None:
    # The marks themselves are invisible to scripts (dunder attributes): check them here.
    import json

    from sandbox.worker.language.modules import build_proxies

    proxies = build_proxies(["abc", "typing", "functools"])
    for call in (
        lambda: proxies["abc"].abstractmethod(json.loads),  # type: ignore[attr-defined]
        lambda: proxies["typing"].final(json.loads),  # type: ignore[attr-defined]
        lambda: proxies["typing"].no_type_check(json.loads),  # type: ignore[attr-defined]
        lambda: proxies["typing"].dataclass_transform()(json.loads),  # type: ignore[attr-defined]
    ):
        with pytest.raises(TypeError):
            call()
    marks = ("__isabstractmethod__", "__final__", "__no_type_check__", "__dataclass_transform__")
    assert not [mark for mark in marks if mark in vars(json.loads)]


def test_the_same_decorators_still_work_on_the_scripts_own_code(box: Sandbox) -> None:
    source = """
import abc, typing, functools, dataclasses
class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self):
        pass
@typing.final
class Square(Shape):
    def __init__(self, side):
        self.side = side
    @typing.final
    def area(self):
        return self.side ** 2
@functools.total_ordering
class V:
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        return self.v == other.v
    def __lt__(self, other):
        return self.v < other.v
@typing.runtime_checkable
class HasArea(typing.Protocol):
    def area(self): ...
@typing.no_type_check
def loose(x):
    return x
try:
    Shape()
    abstract = False
except TypeError:
    abstract = True
final_result([Square(3).area(), abstract, V(1) >= V(0), isinstance(Square(1), HasArea),
              loose(5)])
"""
    with box.session() as session:
        execution = session.run(source)
    assert execution.error_code is None, execution.output
    assert execution.output.value == [9, True, True, True, 5]  # type: ignore[union-attr]


STR_SUBCLASS = """
class S(str):
    def __contains__(self, item):
        return False
    def startswith(self, prefix, *args):
        return False
    def isidentifier(self):
        return True
    def split(self, sep=None, maxsplit=-1):
        return ["real"]
    def join(self, items):
        return ""
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("getattr(1, S('__class__'))", "TypeError"),
        ("setattr(P(), S('_x'), 1)", "TypeError"),
        ("import operator\noperator.attrgetter(S('__class__'))(1)", "TypeError"),
        ("import operator\noperator.methodcaller(S('__reduce__'))(1)", "TypeError"),
        ("print(1, 2, sep=S(' '), end=S('!'))\nfinal_result(1)", None),
    ],
)
def test_guards_never_ask_a_str_subclass(box: Sandbox, source: str, expected: str | None) -> None:
    with box.session() as session:
        execution = session.run(STR_SUBCLASS + "class P:\n    pass\n" + source)
    if expected is None:
        assert execution.error_code is None, execution.output
        assert execution.stdout == "1 2!"
    else:
        assert execution.error_code == "runtime_error", execution.output
        assert expected in execution.output.message  # type: ignore[union-attr]


def test_no_module_member_stores_on_a_library_object_it_is_given() -> None:
    # Every callable member of every catalog module, called with a library function and
    # a library class (as a script would hand them over): none may leave a mark on them.
    from sandbox.worker.language.modules import CATALOG, PROVIDED, build_proxies

    def canary() -> None:
        """A stand-in for a library function."""

    class Canary:
        """A stand-in for a library class."""

        def method(self) -> None:
            pass

    # Reading a class's ``__annotations__`` creates an empty dict (Python 3.10+): not a mark.
    assert Canary.__annotations__ == {}
    before = dict(vars(Canary))
    proxies = build_proxies([name for name in CATALOG if name not in PROVIDED])
    called = 0
    for module, proxy in proxies.items():
        for key in dir(proxy):
            member = getattr(proxy, key)
            if key.startswith("_") or not callable(member) or module == "time":
                continue  # time's members only read clocks (and sleep)
            for argument in (canary, Canary):
                called += 1
                try:
                    member(argument)
                except BaseException:  # refusals and misuse alike
                    pass
    assert called > 500
    assert vars(canary) == {}, f"marked: {vars(canary)}"
    assert vars(Canary.method) == {}
    assert dict(vars(Canary)) == before


def test_no_module_exposes_a_mutable_container_of_its_own() -> None:
    # ``typing.EXCLUDED_ATTRIBUTES`` was a list typing itself reads: a script could change it.
    from sandbox.worker.language.modules import CATALOG, PROVIDED, build_proxies

    proxies = build_proxies([name for name in CATALOG if name not in PROVIDED])
    mutable = [
        f"{module}.{key}"
        for module, proxy in proxies.items()
        for key in dir(proxy)
        if not key.startswith("__")
        and isinstance(getattr(proxy, key), (list, dict, set, bytearray))
        # The script's own ``sys.argv`` (empty): no library code reads it.
        and f"{module}.{key}" != "sys.argv"
    ]
    assert not mutable
