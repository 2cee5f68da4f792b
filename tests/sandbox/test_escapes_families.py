"""Attacks on the language layer by family, each tried for real with the OS layer off.

Each script prints ``ESCAPED`` only if the attack worked (a library object changed, raw
memory read, the real builtins or ``type`` in hand, a thread outliving its run) and
tries to print the host's environment secret. The families: values handed into script
code by native code, dunder names arriving as data, library code run with a
script-chosen ``self``, native attribute walkers, code outliving its run, and shared
module state.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from sandbox import Execution, Sandbox, SandboxPolicy

ENV_TOKEN = secrets.token_hex(16)
PRESETS = ("strict", "default", "data")


@pytest.fixture(scope="module")
def boxes() -> Iterator[dict[str, Sandbox]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEACT_TEST_SECRET", ENV_TOKEN)
        opened: dict[str, Sandbox] = {}
        try:
            for name in PRESETS:
                policy = SandboxPolicy.preset(name).with_layers(os=False)
                opened[name] = Sandbox(policy, spares=0).__enter__()
            yield opened
        finally:
            for box in opened.values():
                box.__exit__(None, None, None)


def run_alone(boxes: dict[str, Sandbox], preset: str, *sources: str) -> list[Execution]:
    """Run ``sources`` one after another in a fresh session of ``preset``."""
    with boxes[preset].session() as session:
        return [session.run(source) for source in sources]


def assert_held(execution: Execution) -> None:
    dump = execution.model_dump_json()
    assert "ESCAPED" not in dump, execution.stdout + str(execution.output)
    assert ENV_TOKEN not in dump, "the host's environment leaked"
    assert execution.error_code != "worker_crashed", "the worker's own code was changed"


JSON_INTACT = """
import json
if json.dumps([1, 2]) != "[1, 2]":
    print("ESC" + "APED")
"""

# -- 1. numpy's data protocols --------------------------------------------------------

ARRAY_INTERFACE_NAMESPACE = """
import numpy as np, types
x = 12345678901234567890
iface = {"shape": (16,), "typestr": "|u1", "data": (id(x), True), "version": 3}
a = np.asarray(types.SimpleNamespace(**{"__array_interface__": iface}))
if int.from_bytes(bytes(a[8:16]), "little") == id(int):
    print("ESC" + "APED")
"""

ARRAY_INTERFACE_GETATTR = """
import numpy as np
x = 12345678901234567890
class P:
    def __getattr__(self, name):
        if name == "__array_interface__":
            return {"shape": (16,), "typestr": "|u1", "data": (id(x), True), "version": 3}
        raise AttributeError(name)
a = np.asarray(P())
if a.dtype == np.uint8 and int.from_bytes(bytes(a[8:16]), "little") == id(int):
    print("ESC" + "APED")
"""

ARRAY_INTERFACE_CLASS = """
import numpy as np
x = 12345678901234567890
class P:
    __array_interface__ = {"shape": (16,), "typestr": "|u1", "data": (id(x), True), "version": 3}
a = np.asarray(P())
if int.from_bytes(bytes(a[8:16]), "little") == id(int):
    print("ESC" + "APED")
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "source", [ARRAY_INTERFACE_NAMESPACE, ARRAY_INTERFACE_GETATTR, ARRAY_INTERFACE_CLASS]
)
def test_numpy_reads_no_address_a_script_gives(boxes: dict[str, Sandbox], source: str) -> None:
    (execution,) = run_alone(boxes, "data", source)
    assert_held(execution)


# -- 2. comparison reflection hands library values to a script's __eq__ ---------------

REFLECTED_BUILTINS = """
import dataclasses, json, typing
T = typing.TypedDict("T", {"__builtins__": int})
@dataclasses.dataclass
class D(T):
    pass
got = []
class Probe(dict):
    def __eq__(self, other):
        got.append(other)
        return False
    __hash__ = None
ns = {"__builtins__": Probe()}
exec("def f(): pass", ns)
D.__eq__(json.dumps, ns["f"])
D.__eq__(ns["f"], json.dumps)
for bi in got:
    if "__import__" in bi:
        print("ESC" + "APED")
        print(bi["__import__"]("os").environ.get("CODEACT_TEST_SECRET"))
"""


@pytest.mark.timeout(120)
def test_comparison_reflection_hands_out_no_builtins(boxes: dict[str, Sandbox]) -> None:
    (execution,) = run_alone(boxes, "default", REFLECTED_BUILTINS)
    assert_held(execution)


# -- 3. the real type from a public API ---------------------------------------------

REAL_TYPE = (
    """
import copy, json, typing
t = typing.get_origin(typing.Type)
def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))
X = t("X", (), {"__reduce_ex__": red})
copy.copy(X())
"""
    + JSON_INTACT
)

REAL_TYPE_IN_A_TUPLE = """
import typing
(t,) = typing.get_args(typing.Type[typing.Type])
o = typing.get_origin(t)
X = o("X", (), {"__getattribute__": lambda self, name: name})
print("ESC" + "APED")
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("source", [REAL_TYPE, REAL_TYPE_IN_A_TUPLE])
def test_no_public_api_hands_out_the_real_type(boxes: dict[str, Sandbox], source: str) -> None:
    (execution,) = run_alone(boxes, "default", source)
    assert_held(execution)


# -- 4. str.format behind a Python wrapper ------------------------------------------

USER_STRING_FORMAT = """
import collections, json
t = collections.UserString("{0.__globals__[codecs].sys.modules[os].environ[CODEACT_TEST_SECRET]}")
print(t.format(json.loads))
"""

USER_STRING_FORMAT_MAP = """
import collections, json
t = collections.UserString("{f.__globals__[codecs].sys.modules[os].environ[CODEACT_TEST_SECRET]}")
print(t.format_map({"f": json.loads}))
"""

USER_STRING_SUBCLASS_FORMAT = """
import collections, json
class U(collections.UserString):
    pass
print(U("{0.__globals__}").format(json.loads)[:40])
print("ESC" + "APED")
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "source", [USER_STRING_FORMAT, USER_STRING_FORMAT_MAP, USER_STRING_SUBCLASS_FORMAT]
)
def test_format_wrappers_walk_no_attributes(boxes: dict[str, Sandbox], source: str) -> None:
    (execution,) = run_alone(boxes, "default", source)
    assert_held(execution)


# -- 5. dunder names as data ---------------------------------------------------------

UPDATE_WRAPPER_DUNDERS = (
    """
import copy, functools, json, types
class W:
    pass
def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))
functools.update_wrapper(W, types.SimpleNamespace(**{"__reduce_ex__": red}))
copy.copy(W())
"""
    + JSON_INTACT
)

TYPED_DICT_KWDEFAULTS = (
    """
import dataclasses, json, typing
T = typing.TypedDict("T", {"__kwdefaults__": dict})
@dataclasses.dataclass
class D(T):
    pass
D.__init__(json.dumps, {"separators": ("!!", ":")})
"""
    + JSON_INTACT
)

NAMEDTUPLE_DUNDER_FIELD = """
import typing
N = typing.NamedTuple("N", [("__reduce_ex__", int)])
print("ESC" + "APED")
"""

SETATTR_DUNDER = (
    """
import copy, json
class W:
    pass
def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))
w = W()
setattr(W, "__reduce_ex__", red)
copy.copy(w)
"""
    + JSON_INTACT
)

SYMPY_FUNCTION_DUNDER = (
    """
import copy, json, sympy
def red(self, proto):
    return ((lambda c: c), (json.JSONEncoder,), (None, {"item_separator": "!!"}))
F = sympy.Function("F", **{"__reduce_ex__": red})
copy.copy(F(1))
"""
    + JSON_INTACT
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "source",
    [UPDATE_WRAPPER_DUNDERS, TYPED_DICT_KWDEFAULTS, NAMEDTUPLE_DUNDER_FIELD, SETATTR_DUNDER],
)
def test_no_dunder_arrives_as_data(boxes: dict[str, Sandbox], source: str) -> None:
    executions = run_alone(boxes, "default", source, JSON_INTACT)
    for execution in executions:
        assert_held(execution)
    assert executions[-1].error_code is None, executions[-1].output


@pytest.mark.timeout(120)
def test_no_dunder_arrives_through_sympy(boxes: dict[str, Sandbox]) -> None:
    executions = run_alone(boxes, "data", SYMPY_FUNCTION_DUNDER, JSON_INTACT)
    for execution in executions:
        assert_held(execution)


# -- 6. library methods with a script-chosen self ------------------------------------

GENERATED_INIT_ANY_SELF = (
    """
import dataclasses, json
@dataclasses.dataclass
class D:
    item_separator: str
D.__init__(json.JSONEncoder, "!!")
"""
    + JSON_INTACT
)

INHERITED_INIT_ANY_SELF = (
    """
import json
class G(json.JSONEncoder):
    pass
G.__init__(json.JSONEncoder, separators=("!!", ":"))
"""
    + JSON_INTACT
)

GENERATED_SETATTR_ANY_SELF = (
    """
import dataclasses, json
@dataclasses.dataclass(frozen=True)
class D:
    item_separator: str
D.__eq__(json.JSONEncoder, json.JSONEncoder)
D.__repr__(json.JSONEncoder)
"""
    + JSON_INTACT
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("preset", ["strict", "default"])
@pytest.mark.parametrize(
    "source", [GENERATED_INIT_ANY_SELF, INHERITED_INIT_ANY_SELF, GENERATED_SETATTR_ANY_SELF]
)
def test_library_code_never_runs_with_a_chosen_self(
    boxes: dict[str, Sandbox], preset: str, source: str
) -> None:
    executions = run_alone(boxes, preset, source, JSON_INTACT)
    for execution in executions:
        assert_held(execution)


# -- 7. code outside a run, replayed limits ------------------------------------------

KEEP_LIMIT = """
class Keep:
    def __enter__(self):
        return self
    def __exit__(self, t, v, tb):
        global kept
        kept = v
        return True
with Keep():
    while True:
        print("x" * 1000)
"""


@pytest.mark.timeout(120)
def test_a_kept_limit_is_not_a_limit_in_the_next_run(boxes: dict[str, Sandbox]) -> None:
    first, second = run_alone(boxes, "default", KEEP_LIMIT, "raise kept")
    assert first.error_code == "output_limit"
    assert second.error_code == "policy_violation", second.output


THREAD_OUTLIVES_RUN = """
import threading
def spin():
    while True:
        pass
threading.Thread(target=spin, daemon=True).start()
print("started")
"""


@pytest.mark.timeout(120)
def test_no_thread_outlives_its_run() -> None:
    policy = (
        SandboxPolicy.preset("default")
        .model_copy(update={"trust_uncurated": True})
        .allow_modules("threading")
        .with_layers(os=False)
    )
    with Sandbox(policy, spares=0) as box, box.session() as session:
        first = session.run(THREAD_OUTLIVES_RUN)
        assert first.error_code == "policy_violation", first.output
        assert "thread" in str(first.output)
        # The worker ended after reporting the run: the session goes on in a new one.
        later = [session.run("print('next')") for _ in range(2)]
        assert later[-1].stdout == "next\n", later[-1].output
        assert all("started" not in run.stdout for run in later)


# -- 8. shared module state, stale caches, name-driven walkers -----------------------

DEFAULT_CONTEXT = """
import decimal
decimal.DefaultContext.prec = 3
"""


@pytest.mark.timeout(120)
def test_decimal_default_context_is_read_only(boxes: dict[str, Sandbox]) -> None:
    first, second = run_alone(
        boxes, "default", DEFAULT_CONTEXT, "import decimal\nprint(decimal.Context().prec)"
    )
    assert first.error_code == "runtime_error", first.output
    assert "read-only" in str(first.output) or "cannot set" in str(first.output)
    assert second.stdout == "28\n"


SERIES_AGG_DICT = """
import pandas as pd
d = pd.Series([1, 2]).agg("__dict__")
print(type(d).__name__, "ESC" + "APED")
"""

RCPARAMS_BACKEND = """
import matplotlib
import matplotlib.pyplot as plt
matplotlib.rcParams["backend"] = "module://this"
plt.figure()
"""

RCPARAMS_BACKEND_RAW = """
import matplotlib
import matplotlib.pyplot as plt
dict.__setitem__(matplotlib.rcParams, "backend", "module://this")
plt.figure()
"""


PANDAS_PLOTTING_BACKEND = """
import pandas as pd
pd.set_option("plotting.backend", "this")
pd.Series([1, 2]).plot()
"""

FIGURE_HOOKS = """
import matplotlib
import matplotlib.pyplot as plt
matplotlib.rcParams["figure.hooks"] = ["this:print"]
plt.subplots()
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "source",
    [
        SERIES_AGG_DICT,
        RCPARAMS_BACKEND,
        RCPARAMS_BACKEND_RAW,
        PANDAS_PLOTTING_BACKEND,
        FIGURE_HOOKS,
    ],
    ids=["agg-dict", "rc-backend", "rc-backend-raw", "pandas-backend", "figure-hooks"],
)
def test_data_libraries_walk_and_import_nothing_by_name(
    boxes: dict[str, Sandbox], source: str
) -> None:
    (execution,) = run_alone(boxes, "data", source)
    assert_held(execution)
    assert "Beautiful is better than ugly" not in execution.stdout


# -- harmless reads the same rules answer ----------------------------------------------

HARMLESS_READS = """
from __future__ import annotations
import dataclasses, sys, numpy, pandas
@dataclasses.dataclass
class Point:
    \"\"\"A point.\"\"\"
    x: int
    nxt: Point | None = None
    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.x})"
print(numpy.__version__ == numpy.__version__.strip(), isinstance(pandas.__version__, str))
print(Point.__name__, Point.__qualname__, Point.__doc__, repr(Point(1)), sys.platform)
"""


@pytest.mark.timeout(120)
def test_harmless_reads_are_answered(boxes: dict[str, Sandbox]) -> None:
    (execution,) = run_alone(boxes, "data", HARMLESS_READS)
    assert execution.error_code is None, execution.output
    assert execution.stdout.splitlines() == ["True True", "Point Point A point. Point(1) linux"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("x = 1\nfrom __future__ import annotations\n", "beginning of the file"),
        ("from __future__ import barry_as_FLUFL\n", "not supported"),
        ("from __future__ import annotations as a\n", "not supported"),
    ],
)
def test_future_imports_are_directives_at_the_top_only(
    boxes: dict[str, Sandbox], source: str, why: str
) -> None:
    (execution,) = run_alone(boxes, "default", source)
    assert execution.error_code == "policy_violation" and why in str(execution.output)


PER_SESSION_STATE = """
import numpy as np, pandas as pd, matplotlib, decimal
np.set_printoptions(precision=2)
pd.set_option("display.max_rows", 3)
matplotlib.rcParams["lines.linewidth"] = 7
print(decimal.getcontext().prec)
decimal.getcontext().prec = 5
"""

READ_STATE = """
import numpy as np, pandas as pd, matplotlib, decimal
print(np.get_printoptions()["precision"], pd.get_option("display.max_rows"),
      matplotlib.rcParams["lines.linewidth"], decimal.getcontext().prec)
"""


@pytest.mark.timeout(120)
def test_library_state_a_session_changes_is_its_own(boxes: dict[str, Sandbox]) -> None:
    first, again = run_alone(boxes, "data", PER_SESSION_STATE, READ_STATE)
    assert first.error_code is None, first.output
    assert again.stdout == "2 3 7.0 5\n"
    (fresh,) = run_alone(boxes, "data", READ_STATE)
    assert fresh.stdout == "8 60 1.5 28\n", fresh.output
