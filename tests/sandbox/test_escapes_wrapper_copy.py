"""``functools.wraps`` copies the wrapped object's ``__dict__`` onto the script's function.

With a library class or a stand-in as the wrapped object, its private members would
become the script function's own: the stand-in's real class, ``ForwardRef._evaluate``
(``eval`` with the real builtins). Each attack runs with the language layer alone and
with every layer, and must not reach the member.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy

LAYERS = {"language only": {"os": False}, "all layers": {}}

FORWARD_REF_EVAL = """
import functools, typing
K = type(typing.get_args(typing.List["x"])[0])
def g():
    pass
functools.wraps(K)(g)
RealFR = g._sandbox_target
print("GOT", RealFR)
def h():
    pass
functools.wraps(RealFR)(h)
ref = RealFR("__import__('os').getpid()")
print("GOT", h._evaluate(ref, None, None, frozenset()))
"""

COPIES = {
    "stand-in's real class, then ForwardRef._evaluate": FORWARD_REF_EVAL,
    "Template._invalid": "import functools, string\ndef g():\n    pass\n"
    "functools.wraps(string.Template)(g)\nprint('GOT', g._invalid)",
    "ABC._abc_impl": "import functools, abc\ndef g():\n    pass\n"
    "functools.wraps(abc.ABC)(g)\nprint('GOT', g._abc_impl)",
}


@pytest.fixture(scope="module", params=list(LAYERS), ids=list(LAYERS))
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    policy = SandboxPolicy.preset("default").with_layers(**LAYERS[request.param])
    with Sandbox(policy, spares=0) as sb:
        yield sb


@pytest.mark.parametrize("attack", list(COPIES.values()), ids=list(COPIES))
def test_wraps_does_not_hand_out_library_privates(sandbox: Sandbox, attack: str) -> None:
    with sandbox.session() as session:
        execution = session.run(attack)
    assert "GOT" not in execution.stdout
    assert execution.error_code in {"policy_violation", "runtime_error"}


def test_wraps_still_copies_the_scripts_own(sandbox: Sandbox) -> None:
    source = """
import functools
def inner(x):
    "doc"
    return x
inner._tag = 1
@functools.wraps(inner)
def outer(x):
    return inner(x)
print(outer.__name__, outer.__doc__, outer._tag, outer(2))
"""
    with sandbox.session() as session:
        assert session.run(source).stdout == "inner doc 1 2\n"
