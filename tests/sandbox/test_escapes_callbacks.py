"""Library code calling the script's callables back: eval from an event loop's callback,
sympy and matplotlib running what the script handed them. Each attack runs with the
language layer alone and with every layer, and must reach nothing of the worker's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy

pytestmark = pytest.mark.timeout(120)
LAYERS = {"language only": {"os": False}, "all layers": {}}

EVAL_FROM_A_CALLBACK = """
import asyncio, functools
async def noop():
    pass
def go(src):
    t = asyncio.create_task(noop())
    t.add_done_callback(functools.partial(max, src, key=eval))
    return t
await go("print('GOT', getattr, sys)")
await asyncio.sleep(0)
await go("print('GOT', getattr(asyncio, '_get_running_loop'))")
await asyncio.sleep(0)
"""

DATA = {
    "nsolve runs lambdify's generated source": (
        "import sympy\nx = sympy.Symbol('x')\n"
        "F = sympy.Function(\"(lambda *a: print('GOT') or 0)\")\n"
        "sympy.nsolve(F(x) + x - 1, x, 0.5)"
    ),
    "StrMethodFormatter walks attributes natively": (
        "import matplotlib.ticker as ticker, pandas as pd\n"
        "print('GOT', ticker.StrMethodFormatter('{x.__globals__[__builtins__]}')(pd.read_csv))"
    ),
    "bar_label's format string walks attributes": (
        "import matplotlib.pyplot as plt, pandas as pd\n"
        "fig, ax = plt.subplots()\n"
        "labels = ax.bar_label(ax.bar([1], [2]), fmt='{0.__class__.__mro__}')\n"
        "print('GOT', [t.get_text() for t in labels])"
    ),
    "sympy.var binds names in the library that calls it": (
        "import sympy, json\n"
        "try:\n    json.dumps([{'encode_basestring_ascii'}], default=sympy.var)\n"
        "except Exception:\n    pass\n"
    ),
}


@pytest.fixture(scope="module", params=list(LAYERS), ids=list(LAYERS))
def default(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    policy = SandboxPolicy.preset("default").with_layers(**LAYERS[request.param])
    with Sandbox(policy, spares=0) as sb:
        yield sb


@pytest.fixture(scope="module", params=list(LAYERS), ids=list(LAYERS))
def data(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    pytest.importorskip("sympy")
    pytest.importorskip("matplotlib")
    policy = SandboxPolicy.preset("data").with_layers(**LAYERS[request.param])
    with Sandbox(policy, spares=0) as sb:
        yield sb


def test_eval_called_back_without_a_script_frame_runs_in_the_scripts_globals(
    default: Sandbox,
) -> None:
    with default.session() as session:
        execution = session.run(EVAL_FROM_A_CALLBACK)
    assert "GOT" not in execution.stdout
    assert "NameError" in execution.stdout  # sys is not the script's
    assert "_get_running_loop" in execution.stdout  # the script's own, guarded getattr
    assert "/" not in execution.stdout.replace("a/b", "")  # no host paths in the report


@pytest.mark.parametrize("attack", list(DATA.values()), ids=list(DATA))
def test_library_callbacks_reach_nothing(data: Sandbox, attack: str) -> None:
    with data.session() as session:
        execution = session.run(attack)
        after = session.run("import json\nprint(json.dumps('abc'))")
    assert "GOT" not in execution.stdout, execution.stdout
    assert after.stdout == '"abc"\n', after.output
