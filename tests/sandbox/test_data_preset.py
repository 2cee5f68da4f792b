"""The data preset: numpy, pandas, matplotlib, scipy and sympy in a worker, their files
through the mounts at the sandbox paths, and what is refused in them."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

for _name in ("numpy", "pandas", "matplotlib", "scipy", "sympy"):
    pytest.importorskip(_name, reason="the data extra is not installed")

from sandbox import Mount, Sandbox, SandboxPolicy  # noqa: E402
from sandbox.execution import Execution  # noqa: E402


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    data, out = tmp_path_factory.mktemp("data"), tmp_path_factory.mktemp("out")
    (data / "x.csv").write_text("a,b\n1,2\n3,4\n")
    (data / "planted.npy").write_bytes(_planted_pickle())
    return data, out


def _planted_pickle() -> bytes:
    import numpy as np

    array = np.array([{"k": 1}], dtype=object)  # an object array is stored as a pickle
    from io import BytesIO

    buffer = BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def data_sandbox(dirs: tuple[Path, Path]) -> Iterator[Sandbox]:
    data, out = dirs
    policy = SandboxPolicy.preset("data").with_mounts(
        Mount(sandbox_path="/data", host_path=str(data)),
        Mount(sandbox_path="/out", host_path=str(out), mode="rw"),
    )
    with Sandbox(policy, spares=0) as sb:
        yield sb


def _run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


def test_typical_analysis_code_runs(data_sandbox: Sandbox) -> None:
    execution = _run(
        data_sandbox,
        """
import numpy as np, pandas as pd, scipy.stats as st, sympy as sp
import matplotlib.pyplot as plt
a = np.arange(6.0).reshape(2, 3)
df = pd.DataFrame({"g": ["a", "b", "a"], "v": [1, 2, 3]})
df.columns = ["group", "value"]
x = sp.Symbol("x")
fig, ax = plt.subplots()
ax.plot(a[0], a[1])
ax.scatter(a[0], a[1], c=a[1], cmap=plt.cm.viridis)
import matplotlib.ticker as ticker
ax.xaxis.set_major_locator(ticker.MaxNLocator(3))
final_result({
    "mean": float(a.mean().round(1)),
    "sums": df.groupby("group").value.sum().to_dict(),
    "p": round(float(st.ttest_ind([1, 2, 3], [2, 3, 4]).pvalue), 3),
    "diff": str(sp.diff(x**3, x)),
    "lines": len(ax.lines),
})
""",
    )
    assert execution.output.value == {  # type: ignore[union-attr]
        "mean": 2.5,
        "sums": {"a": 4, "b": 2},
        "p": 0.288,
        "diff": "3*x**2",
        "lines": 1,
    }, execution.output


def test_libraries_open_files_at_the_sandbox_paths(
    data_sandbox: Sandbox, dirs: tuple[Path, Path]
) -> None:
    _, out = dirs
    execution = _run(
        data_sandbox,
        """
import numpy as np, pandas as pd
import matplotlib.pyplot as plt
df = pd.read_csv("/data/x.csv")
df["c"] = df.a + df.b
df.to_csv("/out/y.csv", index=False)
np.save("/out/a.npy", np.arange(4))
plt.plot(df.a, df.b)
plt.savefig("/out/plot.png")
final_result([open("/out/y.csv").read(), np.load("/out/a.npy").tolist()])
""",
    )
    assert execution.output.value == ["a,b,c\n1,2,3\n3,4,7\n", [0, 1, 2, 3]], execution.output  # type: ignore[union-attr]
    assert (out / "plot.png").read_bytes().startswith(b"\x89PNG")
    written = {f.path: f.size for f in execution.files}
    assert set(written) == {"/out/y.csv", "/out/a.npy", "/out/plot.png"}
    assert written["/out/plot.png"] == (out / "plot.png").stat().st_size


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ('import pandas as pd\npd.DataFrame({"a": [1]}).query("a > 0")', "DataFrame.query is not"),
        ('import pandas as pd\npd.DataFrame({"a": [1]}).eval("a + 1")', "DataFrame.eval is not"),
        ('import pandas as pd\npd.eval("1 + 1")', "no attribute 'eval'"),
        ("import pandas as pd\npd.read_pickle", "no attribute 'read_pickle'"),
        ("import pandas as pd\npd.io.common", "no attribute 'io'"),
        ('import numpy as np\nnp.load("/data/planted.npy", allow_pickle=True)', "unpickles"),
        ('import numpy as np\nnp.load("/data/planted.npy")', "allow_pickle=False"),
        ("import numpy as np\nnp.ctypeslib", "no attribute 'ctypeslib'"),
        ("import numpy.ctypeslib", "No module named 'numpy.ctypeslib'"),
        ("import numpy as np\nnp.lib.stride_tricks.as_strided", "no attribute 'lib'"),
        ("import numpy as np\nnp.arange(3).strides = (0,)", "cannot set or delete attributes"),
        ('import sympy\nsympy.sympify("x + 1")', "no attribute 'sympify'"),
        ("import sympy\nsympy.simplify(\"__import__('os')\")", "sympy string parsing"),
        ('import pandas as pd\npd.read_csv("/etc/passwd")', "library code may not read"),
        ('import pandas as pd\npd.read_csv("http://127.0.0.1:9/x.csv")', "urllib.Request"),
        ('import pandas as pd\npd.DataFrame({"a": [1]}).to_csv("/data/w.csv")', "may not write"),
        ('import numpy as np\nnp.save("/tmp/x.npy", np.arange(2))', "may not write"),
        ("import matplotlib\nmatplotlib.use('tkagg')", "no attribute 'use'"),
    ],
)
def test_known_attack_surface_is_refused(data_sandbox: Sandbox, source: str, needle: str) -> None:
    execution = _run(data_sandbox, source)
    assert execution.error_code is not None, source
    assert needle in execution.output.message, execution.output  # type: ignore[union-attr]


def test_matplotlib_uses_no_configuration_of_the_host(data_sandbox: Sandbox) -> None:
    execution = _run(
        data_sandbox,
        "import matplotlib\nfinal_result([matplotlib.get_backend(), "
        "matplotlib.matplotlib_fname(), matplotlib.get_cachedir()])",
    )
    backend, rc, cache = execution.output.value  # type: ignore[union-attr]
    assert backend.lower() == "agg"
    assert rc.endswith("mpl-data/matplotlibrc")  # the packaged defaults
    assert "codeact-mpl-" in cache and not Path(cache).exists()  # removed after the zygote


def test_no_thread_is_created_by_numeric_code(data_sandbox: Sandbox) -> None:
    # The syscall filter forbids clone: a library that started a thread would fail here.
    execution = _run(
        data_sandbox,
        "import numpy as np, scipy.linalg as la\n"
        "m = np.random.default_rng(1).normal(size=(300, 300))\n"
        "final_result(bool(np.allclose(la.inv(m) @ m, np.eye(300), atol=1e-6)))",
    )
    assert execution.output.value is True, execution.output  # type: ignore[union-attr]


def test_the_plain_pickle_file_is_really_a_pickle(dirs: tuple[Path, Path]) -> None:
    # The planted file above would execute a payload if unpickled: prove it is one.
    raw = (dirs[0] / "planted.npy").read_bytes()
    assert raw.startswith(b"\x93NUMPY") and pickle.PROTO in raw


def test_the_data_preset_is_default_plus_the_data_libraries() -> None:
    from sandbox import SandboxPolicy

    default = set(SandboxPolicy.preset("default").modules)
    data = set(SandboxPolicy.preset("data").modules)
    assert default <= data
    assert {"numpy", "pandas", "matplotlib.pyplot", "scipy", "sympy"} <= data


def test_each_session_draws_its_own_numpy_random_numbers(data_sandbox: Sandbox) -> None:
    # Workers fork from one zygote: without a reseed, every session's numpy drew the
    # same sequence.
    draws = []
    for _ in range(3):
        with data_sandbox.session() as session:
            execution = session.run("import numpy as np\nfinal_result(float(np.random.rand()))")
            assert execution.ok, execution.output
            draws.append(execution.output.value)  # type: ignore[union-attr]
    assert len(set(draws)) == 3, draws
