"""Routes by which the data libraries read a script's raw memory, tried for real under
the ``data`` preset with the OS layer off: a library attribute hook answering a special
name from its data, a real class reached past its stand-in (re-exported, ``type()`` of
a library object, ``super()``), and numpy arrays over a buffer holding objects.

Each attack prints ``ESCAPED`` only if numpy read memory at the script's address (an
int's header: its type's address) or handed out an object the script forged.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy

READ_AT = """
import numpy as np
x = 12345678901234567890
iface = {"shape": (16,), "typestr": "|u1", "data": (id(x), True), "version": 3}
try:
    a = np.asarray(%s)
    header = bytes(a[8:16]) if a.dtype == np.uint8 and a.shape == (16,) else b""
    if int.from_bytes(header, "little") == id(int):
        print("ESC" + "APED")
    else:
        print("refused: numpy made an array of the object itself")
except Exception as exc:
    print("refused:", type(exc).__name__, exc)
"""

ROUTES = {
    "library __getattr__ (OptimizeResult)": (
        "from scipy.optimize import OptimizeResult",
        'OptimizeResult({"__array_interface__": iface})',
    ),
    "library __getattr__ (Spines)": (
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
        'ax.spines["__array_interface__"] = iface',
        "ax.spines",
    ),
    "type() of a library object": (
        "import time",
        'type(time.get_clock_info("time"))(**{"__array_interface__": iface})',
    ),
    "a class re-exported by a library": (
        "import matplotlib.patches",
        'matplotlib.patches.SimpleNamespace(**{"__array_interface__": iface})',
    ),
    "an enum re-exported by a library": (
        "import matplotlib.pyplot as plt",
        'plt.Enum("E", {"__array_interface__": iface}, type=dict)',
    ),
    "super() past the stand-in": (
        "import types\nns = types.SimpleNamespace()",
        '(super(types.SimpleNamespace, ns).__init__(**{"__array_interface__": iface}), ns)[1]',
    ),
}

FORGED = """
import numpy as np, struct
x = [1, 2]
address = bytearray(struct.pack("<Q", id(x)))
try:
    if %s is x:
        print("ESC" + "APED")
except Exception as exc:
    print("refused:", type(exc).__name__, exc)
"""

OBJECT_BUFFERS = {
    "ndarray(buffer=)": "np.ndarray((1,), dtype=object, buffer=address)[0]",
    "ndarray, a structured dtype": 'np.ndarray((1,), dtype=[("a", "O")], buffer=address)[0][0]',
    "type(array)(buffer=)": "type(np.zeros(1))((1,), object, address)[0]",
    "recarray(buf=)": 'np.recarray((1,), dtype=[("a", "O")], buf=address).a[0]',
}


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("data").with_layers(os=False), spares=0) as sandbox:
        yield sandbox


def _run(box: Sandbox, source: str) -> str:
    with box.session() as session:
        execution = session.run(source)
    assert execution.error_code != "worker_crashed", execution.output
    return execution.stdout + str(execution.output)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_numpy_reads_no_address_a_script_chose(box: Sandbox, route: str) -> None:
    setup, value = ROUTES[route]
    out = _run(box, setup + "\n" + READ_AT % value)
    assert "ESCAPED" not in out
    assert "refused:" in out or "Error" in out, out


@pytest.mark.timeout(180)
@pytest.mark.parametrize("route", sorted(OBJECT_BUFFERS))
def test_no_array_over_a_buffer_holds_objects(box: Sandbox, route: str) -> None:
    out = _run(box, FORGED % OBJECT_BUFFERS[route])
    assert "ESCAPED" not in out
    assert "refused:" in out


@pytest.mark.timeout(180)
def test_what_the_closures_leave_working(box: Sandbox) -> None:
    out = _run(
        box,
        """
import typing, types
import numpy as np
from scipy.optimize import OptimizeResult

class Base:
    def __init__(self):
        self.a = 1

class Child(Base):
    def __init__(self):
        super().__init__()
        super(Child, self).__init__()

a = np.zeros(2)
print(typing.Optional.__name__, OptimizeResult(x=3).x, Child().a)
print(type(a) is np.ndarray, isinstance(a, np.ndarray), np.ndarray[int] is not None)
print(np.ndarray((2,), dtype=np.uint8, buffer=bytearray(2)).tolist(), types.SimpleNamespace(b=2).b)
""",
    )
    assert "Optional 3 1\nTrue True True\n[0, 0] 2" in out, out


RESIZES = {
    "a method call": "a.resize(100000, refcheck=False)",
    "getattr": 'getattr(a, "resize")(100000, refcheck=False)',
    "the class": "np.ndarray.resize(a, 100000, refcheck=False)",
    "type(array)": "type(a).resize(a, 100000, refcheck=False)",
    "operator.methodcaller": 'operator.methodcaller("resize", 100000, refcheck=False)(a)',
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("route", sorted(RESIZES))
def test_resize_never_frees_what_a_view_reads(box: Sandbox, route: str) -> None:
    out = _run(
        box,
        f"""
import numpy as np, operator
a = np.zeros(64, dtype=np.uint64)
view = a[:]
try:
    {RESIZES[route]}
    objects = np.full(64, None, dtype=object)
    if int(view[0]) == id(None):
        print("ESC" + "APED")
except Exception as exc:
    print("refused:", type(exc).__name__, exc)
""",
    )
    assert "ESCAPED" not in out
    assert "refcheck=False" in out, out


MUTATING_COMPARISON = """
import numpy as np


class K:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        if state["n"] < 40:
            state["n"] += 1
            arr[:] = [K(-i) for i in range(len(arr))]
        return self.v < other.v


state = {"n": 0}
arr = np.array([K(i) for i in range(64)][::-1], dtype=object)
arr.%s
print("sorted")
"""


@pytest.mark.timeout(180)
@pytest.mark.xfail(
    strict=True,
    reason="open: numpy's object loops (in-place sort and partition; argsort, searchsorted "
    "and the object ufuncs the same way) hold borrowed references to an array's items "
    "across a call into the script's comparison, which can drop the last reference; the "
    "freed object is used afterwards (SIGSEGV here, a forged reference with a groomed heap)",
)
@pytest.mark.parametrize("call", ["sort()", "partition(5)"])
def test_a_comparison_cannot_free_what_numpy_holds(box: Sandbox, call: str) -> None:
    with box.session() as session:
        execution = session.run(MUTATING_COMPARISON % call)
    assert execution.error_code != "worker_crashed", execution.output
