"""Attacks behind the differences in ``differences.py`` that no other test tries.

Each runs in a real session, with the language layer alone (``os`` off) and with every
layer, and asserts the attack failed and that ordinary use of the same construct works.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Execution, Sandbox, SandboxPolicy

LAYERS = {"language only": {"os": False}, "all layers": {}}


@pytest.fixture(scope="module", params=list(LAYERS), ids=list(LAYERS))
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    policy = SandboxPolicy.preset("default").with_layers(**LAYERS[request.param])
    with Sandbox(policy, spares=0) as sb:
        yield sb


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


# Stock RestrictedPython's safer_getattr refuses string.Formatter's methods, whose
# get_field walks attributes unchecked; here the class is never handed out.
FORMATTER_ROUTES = [
    "import string\nF = string.Formatter",
    "from string import Formatter as F",
    "import string\nF = getattr(string, 'Formatter')",
    "import string\nF = type(string.Template('')).mro()[1]",
]


@pytest.mark.parametrize("route", FORMATTER_ROUTES)
def test_no_string_formatter(sandbox: Sandbox, route: str) -> None:
    attack = route + "\nprint('GOT', F().get_field('0.__globals__', (print,), {}))"
    execution = run(sandbox, attack)
    assert execution.error_code in {"policy_violation", "runtime_error"}
    assert "GOT" not in execution.stdout
    assert run(sandbox, "import string\nprint(string.capwords('a b'))").stdout == "A B\n"


# Stock RestrictedPython refuses `a.x += 1` and `a[i] += 1` at compile time.
AUGMENTED_WRITES = [
    "import json\njson.JSONEncoder.item_separator += '!'",
    "import json\nE = json.JSONEncoder\nE.key_separator += '!'",
    "import math\nmath.pi += 1",
    "import json\nencoder = json.JSONEncoder()\nencoder.item_separator += '!'",
]


@pytest.mark.parametrize("attack", AUGMENTED_WRITES)
def test_augmented_assignment_writes_only_the_scripts_own(sandbox: Sandbox, attack: str) -> None:
    with sandbox.session() as session:
        execution = session.run(attack)
        after = session.run("import json, math\nprint(json.dumps([1, 2], indent=None), math.pi)")
    assert execution.error_code in {"policy_violation", "runtime_error"}
    assert after.stdout == "[1, 2] 3.141592653589793\n"
    own = run(
        sandbox,
        "class A:\n    x = 1\na = A()\na.x += 1\nA.x += 10\nv = [1]\nv[0] += 1\n"
        "v[0:1] += [5]\nd = {'k': 1}\nd['k'] += 1\nprint(a.x, A.x, v, d)",
    )
    assert own.stdout == "2 11 [2, 5] {'k': 2}\n"
