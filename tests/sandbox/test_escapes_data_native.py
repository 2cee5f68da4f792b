"""What the data libraries do natively on a script's behalf, tried for real under the
``data`` preset with the OS layer off: evaluators they hand out (jinja2), raw memory
(ctypes, buffer extents), checks a script's subclass answers one way and the library
reads another, and finalizers that would run between runs.

Each attack is refused or contained: it never prints ``ESCAPED``, reaches the host's
environment or changes another object's memory.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy

#: An array interface over the bytes of ``b`` (a script's raw-memory attempt).
IFACE = '{"shape": (16,), "typestr": "|u1", "data": (id(b) + 32, False), "version": 3}'

ATTACKS = {
    "jinja2 through the Styler": (
        "import pandas as pd\nenv = pd.DataFrame({'a': [1]}).style.env\n"
        "print(env.from_string(\"{{ lipsum.__globals__.__builtins__.__import__('os')"
        '.environ }}").render())'
    ),
    "jinja2 in a native pipeline": (
        "import pandas as pd, operator\n"
        "get = operator.methodcaller('from_string', '{{ cycler.__init__.__globals__.os }}')\n"
        "t = list(map(get, map(operator.attrgetter('env'), [pd.DataFrame().style])))\n"
        "print(t[0].render())"
    ),
    "a custom template directory": (
        "import pandas as pd\npd.io.formats.style.Styler.from_custom_template('.', 'x')"
    ),
    "relabel_index formats natively": (
        "import pandas as pd, numpy as np\n"
        "df = pd.DataFrame({'a': [1]}, index=pd.Index([np.load], dtype=object))\n"
        "print(df.style.relabel_index(['{0.__globals__[sys].modules[os].environ}']).to_html())"
    ),
    "BitGenerator.ctypes": (
        "import numpy as np\nc = np.random.PCG64().ctypes\nA = c.next_uint64.restype * 8"
    ),
    "ctypes items taken natively": (
        "import numpy as np, operator, itertools\nb = b'B' * 32\n"
        "c = np.random.default_rng().bit_generator.ctypes\n"
        "list(map(operator.call, itertools.islice(c, 2, 3), [id(b)]))\nprint(b)"
    ),
    "strides past the buffer": (
        "import numpy as np\nbuf = bytearray(64)\n"
        "a = np.ndarray((5, 5), np.uint8, buffer=buf, strides=(2**61, 2**61))\nprint(a[4, 4])"
    ),
    "resize with a lying refcheck": (
        "import numpy as np\nclass T:\n    def __bool__(self):\n        return True\n"
        "    def __index__(self):\n        return 0\n"
        "a = np.zeros(1000, np.int64)\nv = a[:]\na.resize((200000,), refcheck=T())"
    ),
    "a name a str subclass hides": (
        "import pandas as pd\nclass S(str):\n    def isidentifier(self):\n        return True\n"
        "    def startswith(self, p):\n        return False\n"
        "print(pd.Series([1.0]).agg(S('__dict__')))"
    ),
    "a plotting backend a str subclass hides": (
        "import pandas as pd\nclass S(str):\n    def __eq__(self, o):\n        return False\n"
        "    def __ne__(self, o):\n        return False\n    __hash__ = str.__hash__\n"
        "pd.DataFrame({'a': [1]}).plot(backend=S('this'))"
    ),
    "figure hooks a list subclass hides": (
        "import matplotlib.pyplot as plt\nclass L(list):\n    def __bool__(self):\n"
        "        return False\n"
        "dict.__setitem__(plt.rcParams, 'figure.hooks', L(['this:s']))\nplt.figure()"
    ),
    "a sympy namespace a dict subclass hides": (
        "import sympy, numpy as np\nb = b'A' * 32\nclass D(dict):\n"
        "    def __iter__(self):\n        return iter(['harmless'])\n"
        f"d = D({{'harmless': 1, '__array_interface__': {IFACE}}})\n"
        "a = list(map(np.asarray, map(sympy.Function, ['g'], [None], [d])))[0]\na[0] = 69\nprint(b)"
    ),
    "a copied state a dict subclass hides": (
        "import copy, numpy as np\nb = b'A' * 32\nclass D(dict):\n"
        "    def __iter__(self):\n        return iter(['x'])\n"
        "    def keys(self):\n        return ['x', '__array_interface__']\n"
        "class C:\n    def __getstate__(self):\n"
        f"        return D({{'x': 1, '__array_interface__': {IFACE}}})\n"
        "a = np.asarray(copy.copy(C()))\na[0] = 69\nprint(b)"
    ),
}


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("data").with_layers(os=False), spares=0) as sb:
        yield sb


@pytest.mark.timeout(120)
@pytest.mark.parametrize("source", list(ATTACKS.values()), ids=list(ATTACKS))
def test_native_routes_are_closed(box: Sandbox, source: str) -> None:
    with box.session() as session:
        execution = session.run(source)
    # Each is refused before it prints anything: no memory written, no environment.
    assert execution.error_code in ("policy_violation", "runtime_error"), execution.output
    assert execution.stdout == "", execution.stdout


@pytest.mark.timeout(120)
def test_the_libraries_still_do_their_work(box: Sandbox) -> None:
    source = (
        "import pandas as pd, numpy as np, sympy\n"
        "df = pd.DataFrame({'a': [1.5, 2.5], 'b': [1, 2]})\n"
        "html = df.style.format('{:.1f}').highlight_max().relabel_index(['r{}', 's{}']).to_html()\n"
        "print('1.5' in html, 'r0' in html, df.to_latex().startswith('\\\\begin'))\n"
        "print(df.agg(['sum', 'mean']).shape, df.groupby('b').agg(t=('a', 'sum')).t.tolist())\n"
        "f = sympy.Function('f')\nx = sympy.Symbol('x')\n"
        "print(sympy.dsolve(f(x).diff(x) - f(x), f(x)))\n"
        "print(np.ndarray((2,), np.uint8, buffer=bytearray(b'ab')).tolist())\n"
        "print(np.linalg.eigh(np.eye(2)).eigenvalues.tolist())"
    )
    with box.session() as session:
        execution = session.run(source)
    assert execution.stdout == (
        "True True True\n(2, 2) [1.5, 2.5]\nEq(f(x), C1*exp(x))\n[97, 98]\n[1.0, 1.0]\n"
    ), execution.output


@pytest.mark.timeout(120)
def test_finalizers_run_under_the_run_that_left_them() -> None:
    # A generator suspended in ``try/finally`` inside a reference cycle is collected:
    # its ``finally`` spins. It runs at the end of its own run, under its CPU limit.
    policy = SandboxPolicy.preset("default").with_layers(os=False).with_limits(cpu_soft_s=1)
    source = (
        "def spin():\n    try:\n        yield 1\n    finally:\n        while True:\n"
        "            pass\nbox = []\ng = spin()\nbox.append(box)\nbox.append(g)\nnext(g)\n"
        "del g, box\nkept = 41"
    )
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        left = session.run(source)
        after = session.run("print(kept + 1)")
    assert left.error_code == "cpu_limit", left.output
    assert after.stdout == "42\n", after.output
