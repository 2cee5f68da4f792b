"""Session snapshots: the script's state kept as bytes and rebuilt in a fresh worker."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import Sandbox, SandboxPolicy, Session, Snapshot, SnapshotError

pytestmark = pytest.mark.timeout(120)

STATE = """
import math
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
import datetime
import enum

Point = namedtuple("Point", "x y")

class Color(enum.Enum):
    RED = 1
    BLUE = 2

@dataclass
class Item:
    name: str
    qty: int = 1

    def total(self, price):
        return self.qty * price

class Cart:
    made = 0

    def __init__(self, items):
        self.items = items
        self._note = "private"
        Cart.made += 1

def area(r, scale=2):
    return round(math.pi * r * r * scale, 3)

square = lambda v: v * v
rate = 3
shared = [1, 2]
nested = {"a": shared, "b": shared, (1, 2): {1.5, 2.5}, 4: b"\\x00\\xff"}
loop = [0]
loop.append(loop)
counts = Counter("banana")
od = OrderedDict(z=1, a=2)
dd = defaultdict(list, k=[1])
dq = deque([1, 2, 3], maxlen=5)
when = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)
span = datetime.timedelta(days=2, seconds=5)
money = Decimal("12.30")
third = Fraction(1, 3)
special = [float("nan"), float("inf"), -0.0, 2 ** 80, 1 + 2j, range(1, 9, 2)]
cart = Cart([Item("apple", 3), Item("pear")])
point = Point(1, 2)
color = Color.BLUE
handle = len
gen = (i for i in range(3))
"""

CHECK = """
final_result({
    "area": area(1), "area3": area(1, 3), "square": square(4), "rate": rate,
    "alias": nested["a"] is nested["b"] is shared, "loop": loop[1] is loop,
    "set": sorted(nested[(1, 2)]), "bytes": list(nested[4]),
    "counts": counts["a"], "od": list(od), "dd": dd["k"] + dd["new"], "dq": [list(dq), dq.maxlen],
    "when": when.isoformat(), "span": span.total_seconds(), "money": str(money),
    "third": str(third), "special": [str(special[0]), special[1], str(special[2]),
    special[3], str(special[4]), list(special[5])],
    "cart": [i.total(2) for i in cart.items], "note": cart._note, "made": Cart.made,
    "point": point.x + point.y, "point_type": type(point).__name__,
    "color": color is Color.BLUE, "math": math.floor(2.5),
})
"""


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default"), spares=1) as sb:
        yield sb


def _run_ok(session: Session, source: str) -> object:
    execution = session.run(source)
    assert execution.ok, execution.output
    return execution.output.value if execution.output.type != "error" else None


def _taken(sandbox: Sandbox, source: str = STATE) -> Snapshot:
    with sandbox.session() as session:
        _run_ok(session, source)
        return session.snapshot()


EXPECTED = {
    "area": 6.283, "area3": 9.425, "square": 16, "rate": 3, "alias": True, "loop": True,
    "set": [1.5, 2.5], "bytes": [0, 255], "counts": 3, "od": ["z", "a"], "dd": [1],
    "dq": [[1, 2, 3], 5], "when": "2024-05-01T12:30:00+00:00", "span": 172805.0,
    "money": "12.30", "third": "1/3",
    "special": ["nan", "Infinity", "-0.0", 2**80, "(1+2j)", [1, 3, 5, 7]],
    "cart": [6, 2], "note": "private", "made": 1, "point": 3, "point_type": "Point",
    "color": True, "math": 2,
}  # fmt: skip


def test_the_scripts_state_comes_back_in_a_fresh_worker(sandbox: Sandbox) -> None:
    snapshot = _taken(sandbox)
    assert [(x.name, x.reason) for x in snapshot.lost] == [
        ("gen", "a generator, which cannot be resumed")
    ]
    assert {"area", "square", "cart", "Cart", "math", "Color", "handle"} <= set(snapshot.variables)
    with sandbox.session(restore=snapshot.data) as restored:
        assert restored.restored is not None
        assert restored.restored.variables == snapshot.variables
        assert restored.restored.lost == snapshot.lost
        assert _run_ok(restored, CHECK) == EXPECTED
        # And what the restored session defines can be kept again.
        again = restored.snapshot()
    assert set(again.variables) == set(snapshot.variables)
    assert json.loads(again.data)["definitions"] == json.loads(snapshot.data)["definitions"]


def test_a_snapshot_is_json_that_holds_no_pickle(sandbox: Sandbox) -> None:
    snapshot = _taken(sandbox)
    document = json.loads(snapshot.data)
    assert document["format"] == "codeact-session-snapshot" and document["version"] == 1
    tags = {node["t"] for node in document["objects"]}
    assert tags <= {
        "module", "member", "builtin", "class", "function", "object", "enum", "list",
        "dict", "tuple", "set", "frozenset", "bytes", "float", "complex", "range",
        "counter", "ordereddict", "defaultdict", "deque", "datetime", "timedelta",
        "decimal", "fraction",
    }  # fmt: skip
    source = (Path(__file__).parents[2] / "sandbox" / "host" / "snapshots.py").read_text()
    assert "pickle" not in source.replace("unpickles", "")


def test_a_definition_uses_the_values_it_needs_and_later_ones_overwrite(
    sandbox: Sandbox,
) -> None:
    source = (
        "base = 10\n"
        "def add(x, step=base):\n    return x + step\n"
        "base = 20\n"  # the default stays 10: the function's own, not the name's
        "def add(x, step=base):\n    return x * step\n"  # redefined: the latest counts
        "first = 1\n"
    )
    with sandbox.session() as session:
        _run_ok(session, source)
        _run_ok(session, "old = add\ndef add(x):\n    return -x\ndel first")
        snapshot = session.snapshot()
    with sandbox.session(restore=snapshot) as restored:
        check = "try:\n    first\n    gone = False\nexcept NameError:\n    gone = True\n"
        value = _run_ok(restored, check + "final_result([add(2), old(2), base, gone])")
    assert value == [-2, 40, 20, True]


def test_what_cannot_be_kept_is_named_with_the_reason(sandbox: Sandbox) -> None:
    source = (
        "def outer():\n    def inner():\n        return 1\n    return inner\n"
        "made_inside = outer()\n"
        "async def job():\n    return 1\n"
        "pending = job()\n"
        "import json\nencoder = json.JSONEncoder()\n"
        "fine = [1, 2]\n"
    )
    with sandbox.session() as session:
        session.run(source)
        snapshot = session.snapshot()
    lost = {x.name: x.reason for x in snapshot.lost}
    assert lost["made_inside"] == "a function defined inside another function"
    assert lost["pending"] == "a coroutine, which cannot be resumed"
    assert "JSONEncoder" in lost["encoder"]
    assert {"fine", "outer", "job", "json"} <= set(snapshot.variables)


def test_a_snapshot_survives_the_process(sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(bytes(_taken(sandbox)))
    program = (
        "import sys\nfrom pathlib import Path\nfrom sandbox import Sandbox\n"
        "blob = Path(sys.argv[1]).read_bytes()\n"
        "with Sandbox() as sb, sb.session(restore=blob) as s:\n"
        f"    print(__import__('json').dumps(s.run({CHECK!r}).output.value))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(path)],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == EXPECTED


def test_a_policy_that_refuses_a_module_does_not_get_it_back(sandbox: Sandbox) -> None:
    strict = SandboxPolicy.preset("strict")
    snapshot = _taken(sandbox, "import datetime\nwhen = datetime.date(2024, 1, 2)\nn = 5\n")
    with Sandbox(strict, spares=0) as sb, sb.session(restore=snapshot) as restored:
        assert restored.restored is not None
        assert "n" in restored.restored.variables
        lost = {x.name: x.reason for x in restored.restored.lost}
        if "datetime" in strict.modules:
            pytest.skip("the strict preset allows datetime")
        assert lost["datetime"] == "the module 'datetime' cannot be imported under this policy"
        assert _run_ok(restored, "final_result(n)") == 5


def test_a_plain_python_session_is_kept_too() -> None:
    default = SandboxPolicy.preset("default")
    plain = default.model_copy(
        update={"layers": default.layers.model_copy(update={"language": False})}
    )
    with Sandbox(plain, spares=0) as sb:
        with sb.session() as session:
            _run_ok(
                session,
                "import json\nclass K:\n    def __init__(self):\n        self.__v = [1]\nk = K()\n",
            )
            snapshot = session.snapshot()
        with sb.session(restore=snapshot) as restored:
            assert _run_ok(restored, "final_result([k._K__v, json.dumps(2)])") == [[1], "2"]


def test_the_session_goes_on_after_a_refused_snapshot(sandbox: Sandbox) -> None:
    with sandbox.session() as session:
        _run_ok(session, "x = 1")
        with pytest.raises(SnapshotError, match="not a session snapshot"):
            session.restore(b'{"format": "pickle"}')
        with pytest.raises(SnapshotError, match=r"not valid JSON|not a session snapshot"):
            session.restore(b"\x80\x04\x95")
        # Refused on the host: the worker and its variables are untouched.
        assert _run_ok(session, "final_result(x)") == 1


def test_data_values_are_kept_in_the_data_preset() -> None:
    source = (
        "import numpy as np\nimport pandas as pd\n"
        "grid = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
        "mixed = np.array([1, 'a', None], dtype=object)\n"
        "mean = grid.mean()\n"
        "days = np.array(['2024-01-01', '2024-01-03'], dtype='datetime64[D]')\n"
        "frame = pd.DataFrame({'city': ['Lyon', 'Nice'], 'temp': [21.5, 25.0],\n"
        "    'n': pd.array([1, None], dtype='Int64')}, index=['a', 'b'])\n"
        "frame['kind'] = pd.Categorical(['x', 'y'])\n"
        "series = pd.Series([1, 2, 3], name='s')\n"
        "stamp = pd.Timestamp('2024-03-01 10:00')\n"
        "dates = pd.date_range('2024-01-01', periods=3)\n"
    )
    check = (
        "final_result([float(grid.sum()), str(grid.dtype), list(grid.shape), list(mixed),\n"
        "  float(mean), str(days[1]), frame['temp'].tolist(), str(frame['n'].dtype),\n"
        "  frame['n'].isna().tolist(), frame['kind'].tolist(), frame.index.tolist(),\n"
        "  series.name, int(series.sum()), str(stamp), str(dates[2].date()), list(frame.columns)])"
    )
    with Sandbox(SandboxPolicy.preset("data"), spares=0) as sb:
        with sb.session() as session:
            _run_ok(session, source)
            snapshot = session.snapshot()
        assert snapshot.lost == []
        with sb.session(restore=snapshot) as restored:
            value = _run_ok(restored, check)
    assert value == [
        66.0, "float32", [3, 4], [1, "a", None], 5.5, "2024-01-03", [21.5, 25.0], "Int64",
        [False, True], ["x", "y"], ["a", "b"], "s", 6, "2024-03-01 10:00:00", "2024-01-03",
        ["city", "temp", "n", "kind"],
    ]  # fmt: skip


def test_objects_of_abstract_and_generic_script_classes_are_kept(sandbox: Sandbox) -> None:
    source = (
        "from abc import ABC, abstractmethod\nfrom typing import Generic, TypeVar\n"
        "T = TypeVar('T')\n"
        "class Shape(ABC):\n    @abstractmethod\n    def area(self):\n        ...\n"
        "class Square(Shape):\n    def __init__(self, side):\n        self.side = side\n"
        "    def area(self):\n        return self.side ** 2\n"
        "class Box(Generic[T]):\n    def __init__(self, item):\n        self.item = item\n"
        "shapes = [Square(3), Box(Square(2))]\n"
    )
    with sandbox.session() as session:
        _run_ok(session, source)
        snapshot = session.snapshot()
    assert snapshot.lost == []
    with sandbox.session(restore=snapshot) as restored:
        assert restored.restored is not None and restored.restored.lost == []
        value = _run_ok(
            restored, "final_result([shapes[0].area(), shapes[1].item.area(), T.__name__])"
        )
    assert value == [9, 4, "T"]
