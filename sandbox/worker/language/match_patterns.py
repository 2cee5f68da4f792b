"""``match`` statements under the sandbox's rules: class patterns vetted, bound names checked.

Worker side: the standard library and RestrictedPython only.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from sandbox.worker.language.fastwalk import FastNodeTransformer
from sandbox.worker.language.names import MATCH_CLASS, attribute_error, natively_readable
from sandbox.worker.language.syntax import assign_node, name_node


class MatchPatterns(FastNodeTransformer):
    """The pattern-matching visitors of the sandbox's transformer (``compiler.py``)."""

    if TYPE_CHECKING:
        # The transformer's own state and name rule (``SandboxTransformer``).
        _in_class_body: bool
        _private: str | None
        _matches: int

        def _check(self, node: ast.AST, name: str | None) -> None: ...

    def visit_Match(self, node: ast.Match) -> ast.AST | list[ast.stmt]:
        # ``case C(a, b)`` reads the attributes named by ``C.__match_args__`` natively.
        # The subject is evaluated first, as before; then each such class is vetted by
        # the guard, which returns a stand-in holding the checked names. The stand-ins
        # live under generated names no script can spell or rebind.
        node = self.node_contents_visit(node)
        classes = [
            pattern
            for case in node.cases
            for pattern in ast.walk(case.pattern)
            if isinstance(pattern, ast.MatchClass) and pattern.patterns
        ]
        if not classes:
            return node
        self._matches += 1
        # In a class body the names land in the class namespace: spelled as private
        # names of the class, so that an Enum body keeps them out of its members.
        prefix = f"_{self._private}__" if self._in_class_body else ""
        subject = f"{prefix}.match.subject.{self._matches}"
        prelude: list[ast.stmt] = [assign_node(subject, node.subject, node)]
        node.subject = name_node(subject, node.subject)
        for index, pattern in enumerate(classes, 1):
            ident = f"{prefix}.match.class.{self._matches}.{index}"
            check = ast.Call(name_node(MATCH_CLASS, pattern), [pattern.cls], [])
            prelude.append(assign_node(ident, check, pattern))
            pattern.cls = name_node(ident, pattern.cls)
        for stmt in prelude:
            ast.fix_missing_locations(stmt)
        return [*prelude, node]

    def visit_MatchMapping(self, node: ast.MatchMapping) -> ast.AST:
        self._check(node, node.rest)
        return self.node_contents_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> ast.AST:
        # Keyword patterns read attributes natively: hold them to the attribute rules
        # (CPython does not mangle them), and never one the guard decides at run time.
        for attr in node.kwd_attrs:
            error = attribute_error(attr, None, loading=True)
            if error is not None or not natively_readable(attr):
                self.error(node, f'"{attr}" cannot be matched as an attribute.')
        return self.node_contents_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> ast.AST:
        self._check(node, node.name)
        return self.node_contents_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> ast.AST:
        self._check(node, node.name)
        return node
