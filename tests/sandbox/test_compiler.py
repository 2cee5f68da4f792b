"""The restricted compiler: native fast paths keep RestrictedPython's semantics."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from types import CodeType

import pytest
from RestrictedPython.transformer import RestrictingNodeTransformer

from sandbox.worker.language.compiler import (
    GETATTR,
    LAST_EXPR,
    WRITE,
    CompileFailure,
    compile_script,
)
from sandbox.worker.language.fastwalk import PASS_THROUGH


@pytest.mark.parametrize("name", sorted(PASS_THROUGH))
def test_pass_through_visitors_only_visit_children(name: str) -> None:
    # The fast walk skips these visitors; that is only sound while they do nothing else.
    method = getattr(RestrictingNodeTransformer, f"visit_{name}")
    source = textwrap.dedent(inspect.getsource(method))
    body = re.sub(r'"""[\s\S]*?"""', "", source.split("\n", 1)[1])
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert lines == ["return self.node_contents_visit(node)"], (name, lines)


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("x.__dict__", "__dict__"),
        ("x.gi_frame", "gi_frame"),
        ("_private_ = 1", "_private_"),
        ("__private = 1", "__private"),
        ("def f(_getattr_=None, /):\n    pass", "_getattr_"),
        ("def f(*, _write_=1):\n    pass", "_write_"),
        ("lambda _x_: _x_", "_x_"),
        ("class A:\n    def __getattribute__(self, n):\n        pass", "__getattribute__"),
        ("def __repr__(self):\n    pass", "__repr__"),
        ("class A(metaclass=M):\n    pass", "metaclass"),
        ("from . import x", "relative imports"),
        ("import a as __a", "__a"),
        ("from random import _os", "_os"),
        ("import _thread", "_thread"),
        ("import json._x", "json._x"),
        ("import builtins as glb", "builtins"),
        ("from builtins import open as o", "builtins"),
        ("match p:\n    case C(__class__=k):\n        pass", "__class__"),
        ("match p:\n    case C(gi_frame=k):\n        pass", "gi_frame"),
        ("x.__class__ = int", "__class__"),
        ("global _getattr_\n_getattr_ = 1", "_getattr_"),
        ("try:\n    pass\nexcept* ValueError:\n    pass", "TryStar"),
        ("[y for _y_ in range(3)]", "_y_"),
        ("x.__private", "__private"),
        ("x._sunder_", "_sunder_"),
    ],
)
def test_refused_at_compile_time(source: str, needle: str) -> None:
    result = compile_script(source, "<script>")
    assert isinstance(result, CompileFailure), source
    assert result.kind == "policy"
    assert needle in result.message


def test_allowed_dunders_and_fast_paths_compile() -> None:
    source = textwrap.dedent(
        """
        class A(object):
            def __init__(self):
                super().__init__()
                self.n = 0
            def __repr__(self):
                return type(self).__name__ + self.__class__.__qualname__
        a = A()
        a.n += 1
        d = {}
        d['k'] = d.get('k', 0) + 1
        for i, (x, y) in enumerate([(1, 2)]):
            pass
        "{:.2f}".format(1.0)
        """
    )
    code = compile_script(source, "<script>")
    assert not isinstance(code, CompileFailure), code
    names = _all_names(code)
    assert WRITE in names and GETATTR in names  # a.n store, .format/.__class__ loads
    assert "_getiter_" not in names and "_getitem_" not in names  # native iteration/subscripts


def _all_names(code: CodeType) -> set[str]:
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names |= set(current.co_names)
        stack += [c for c in current.co_consts if isinstance(c, CodeType)]
    return names


def test_syntax_errors_have_no_host_paths() -> None:
    result = compile_script("def f(:\n    pass", "<script>")
    assert isinstance(result, CompileFailure) and result.kind == "syntax"
    assert result.message.startswith("SyntaxError:") and "line 1" in result.message


def test_last_expression_is_captured() -> None:
    code = compile_script("1 + 1", "<script>")
    assert not isinstance(code, CompileFailure)
    tree = ast.parse("1 + 1")
    assert LAST_EXPR in _all_names(code) and tree.body
