"""A script's top level runs as a function whose every binding is declared global
(``sandbox/worker/language/toplevel.py``): names bound where a ``def`` stands — in its
decorators, defaults and annotations, comprehensions' walrus targets included — are the
script's globals, as in a module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy

pytestmark = pytest.mark.timeout(60)

SCRIPT = """
seed = 5
def f(p: [(in_annotation := seed) for _ in [0]] = [(in_default := 1) for _ in [0]]) -> (
    [(in_return := 2) for _ in [0]]
):
    pass
@[(in_decorator := (lambda fn: fn)) for _ in [0]][0]
def g():
    pass
class Base:
    pass
class C([(in_base := Base) for _ in [0]][0]):
    pass
def read():
    return [in_annotation, in_default, in_return, in_decorator(3), in_base is Base]
final_result(read())
"""


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default")) as sb:
        yield sb


def test_names_bound_where_a_def_stands_are_globals(sandbox: Sandbox) -> None:
    with sandbox.session() as session:
        execution = session.run(SCRIPT)
        assert execution.ok, execution.output
        assert execution.output.value == [5, 1, 2, 3, True]  # type: ignore[union-attr]
        later = session.run("final_result(in_annotation + in_return)")
        assert later.output.value == 7, later.output  # type: ignore[union-attr]
