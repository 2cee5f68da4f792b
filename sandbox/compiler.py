"""Restricted compilation: RestrictedPython's checks, with native code where it is safe.

Stock RestrictedPython routes every attribute load, subscript, iteration, unpacking and
augmented assignment through a guard function, which costs 2-5x at run time. This
transformer keeps every compile-time check (no dunder or guard-like names, no
frame/code attributes, no exec/eval, no async) but emits plain bytecode for operations
that cannot reach anything the script does not already hold:

- subscripts, iteration, unpacking, ``name += x`` and calls run natively;
- attribute loads run natively unless the name is in ``RUNTIME_CHECKED_ATTRS``
  (``str.format`` and friends) or private (``obj._cache``), which go through
  ``_getattr_``;
- attribute stores and deletes go through ``_write_`` (user-defined objects only);
- every ``except`` handler starts with ``_reraise_control_()`` so that the sandbox's
  own control exceptions (result helpers, limits) cannot be swallowed.

The worker imports this module, so it depends on the standard library and
RestrictedPython only.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from types import CodeType

from RestrictedPython.transformer import (
    ALLOWED_FUNC_NAMES,
    FORBIDDEN_FUNC_NAMES,
    INSPECT_ATTRIBUTES,
    copy_locations,
)

from .fastwalk import FastNodeTransformer

#: Attribute names whose meaning depends on the object: checked by ``_getattr_`` at run time.
RUNTIME_CHECKED_ATTRS = frozenset({"format", "format_map", "obj", "mro", "__class__", "__init__"})

#: Dunder attributes a script may read (``super().__init__``, ``type(x).__name__``).
READABLE_DUNDERS = frozenset(
    {"__init__", "__name__", "__qualname__", "__doc__", "__class__", "__module__"}
)

#: Special methods a script may define in its own classes.
DEFINABLE_DUNDERS = ALLOWED_FUNC_NAMES | frozenset(
    {
        "__repr__",
        "__str__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__hash__",
        "__bool__",
        "__call__",
        "__enter__",
        "__exit__",
        "__post_init__",
        "__add__",
        "__radd__",
        "__iadd__",
        "__sub__",
        "__rsub__",
        "__isub__",
        "__mul__",
        "__rmul__",
        "__imul__",
        "__truediv__",
        "__rtruediv__",
        "__floordiv__",
        "__rfloordiv__",
        "__mod__",
        "__rmod__",
        "__pow__",
        "__rpow__",
        "__neg__",
        "__pos__",
        "__abs__",
        "__and__",
        "__or__",
        "__xor__",
        "__invert__",
        "__lshift__",
        "__rshift__",
        "__matmul__",
        "__index__",
        "__int__",
        "__float__",
        "__round__",
        "__format__",
        "__reversed__",
        "__missing__",
    }
)

#: Names the compiler itself injects; scripts can never spell them (leading underscore).
GETATTR, WRITE, RERAISE, LAST_EXPR = "_getattr_", "_write_", "_reraise_control_", "_last_expr_"
#: The guard (in ``guards.py``, found through ``_getattr_``'s globals) that vets the class
#: of a class pattern with positional sub-patterns.
MATCH_CLASS = "check_match_class"


#: Names RestrictedPython reserves (``print``, ``printed``, ``builtins``, ``breakpoint``).
_RESERVED_NAMES = FORBIDDEN_FUNC_NAMES

_PRIVATE = re.compile(r"_[A-Za-z0-9](?:\w*[A-Za-z0-9])?")


def is_private_name(name: str) -> bool:
    """``_cache``, ``_helper``: one leading underscore, none trailing.

    Scripts may use such names for their own variables and attributes. Dunders,
    name-mangled ``__x``, ``_sunder_`` names and the guards' ``_getattr_``-style names
    stay refused; a private *attribute* is checked at run time (``_getattr_``): only
    the script's own objects and classes have them.
    """
    return _PRIVATE.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class CompileFailure:
    """Why a script did not compile: ``syntax`` errors or ``policy`` violations."""

    kind: str
    message: str


def _name(ident: str, node: ast.AST) -> ast.Name:
    new = ast.Name(ident, ast.Load())
    copy_locations(new, node)  # type: ignore[arg-type]
    return new


def _assign(ident: str, value: ast.expr, node: ast.AST) -> ast.Assign:
    target = ast.Name(ident, ast.Store())
    copy_locations(target, node)  # type: ignore[arg-type]
    assign = ast.Assign([target], value)
    copy_locations(assign, node)  # type: ignore[arg-type]
    return assign


class SandboxTransformer(FastNodeTransformer):
    """RestrictedPython's transformer, trimmed to the guards this sandbox relies on."""

    def __init__(self) -> None:
        super().__init__()
        # True while visiting the statements directly inside a class body.
        self._in_class_body = False
        self._matches = 0

    # -- names -------------------------------------------------------------------
    def check_name(
        self, node: ast.AST, name: str | None, allow_magic_methods: bool = False
    ) -> None:
        if name is None:
            return
        if allow_magic_methods and self._in_class_body and name in DEFINABLE_DUNDERS:
            return
        if is_private_name(name):
            return
        super().check_name(node, name, allow_magic_methods=False)  # type: ignore[arg-type]

    def visit_Name(self, node: ast.Name) -> ast.AST:
        name = node.id
        # The common case, decided without the generic checks below.
        if name[0] != "_" and name not in _RESERVED_NAMES and not name.endswith("__roles__"):
            return node
        # ``if __name__ == "__main__":`` is common in model-written scripts.
        # ``print`` is the sandbox's capturing builtin, not RestrictedPython's collector.
        if name in ("__name__", "print") and isinstance(node.ctx, ast.Load):
            return node
        self.check_name(node, node.id)
        return node

    # -- attributes --------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        attr = node.attr
        loading = isinstance(node.ctx, ast.Load)
        private = is_private_name(attr)
        if (
            attr.startswith("_")
            and attr != "_"
            and not private
            and not (loading and attr in READABLE_DUNDERS)
        ):
            self.error(node, f'"{attr}" is an invalid attribute name because it starts with "_".')
        if attr in INSPECT_ATTRIBUTES:
            self.error(node, f'"{attr}" is a restricted name and cannot be accessed.')
        node.value = self.visit(node.value)
        if loading:
            if attr not in RUNTIME_CHECKED_ATTRS and not private:
                return node
            call = ast.Call(_name(GETATTR, node), [node.value, ast.Constant(attr)], [])
            copy_locations(call, node)
            return call
        wrapped = ast.Call(_name(WRITE, node.value), [node.value], [])
        copy_locations(wrapped, node.value)
        node.value = wrapped
        return node

    # -- operations that run natively --------------------------------------------
    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_For(self, node: ast.For) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        # A Name target rebinds a local; a Subscript target runs natively; an
        # Attribute target becomes ``_write_(obj).attr += value`` via visit_Attribute,
        # which reads ``attr`` natively: never one that needs the run-time check.
        target = node.target
        if isinstance(target, ast.Attribute) and target.attr in RUNTIME_CHECKED_ATTRS:
            self.error(node, f'"{target.attr}" cannot be the target of an augmented assignment.')
        return self.node_contents_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval"):
            self.error(node, f"{node.func.id}() calls are not allowed.")
        return self.node_contents_visit(node)

    def visit_With(self, node: ast.With) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.AST:
        for name in node.names:
            self.check_name(node, name)
        return node

    # -- imports -----------------------------------------------------------------
    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.level:
            self.error(node, "relative imports are not allowed.")
        return self.check_import_names(node)

    def check_import_names(self, node: ast.ImportFrom | ast.Import) -> ast.AST:
        # A module's underscore names are its internals: never importable, whatever the
        # module. (A private alias, ``import json as _json``, is the script's own name.)
        for alias in node.names:
            if any(part.startswith("_") for part in alias.name.split(".")):
                self.error(node, f'"{alias.name}" cannot be imported: it starts with "_".')
        return super().check_import_names(node)

    # -- exception handlers --------------------------------------------------------
    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        node = self.node_contents_visit(node)
        self.check_name(node, node.name)
        reraise = ast.Expr(ast.Call(_name(RERAISE, node), [], []))
        copy_locations(reraise, node)
        node.body.insert(0, reraise)
        return node

    # -- definitions -------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.check_name(node, node.name, allow_magic_methods=True)
        self.check_function_argument_names(node)
        outer, self._in_class_body = self._in_class_body, False
        try:
            return self.node_contents_visit(node)
        finally:
            self._in_class_body = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.check_name(node, node.name)
        if any(keyword.arg == "metaclass" for keyword in node.keywords):
            self.error(node, 'The keyword argument "metaclass" is not allowed.')
        # ``class A(object):`` means ``class A:``; the name ``object`` is not provided.
        node.bases = [b for b in node.bases if not (isinstance(b, ast.Name) and b.id == "object")]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        outer, self._in_class_body = self._in_class_body, True
        try:
            node.body = self._visit_body(node.body)
        finally:
            self._in_class_body = outer
        return node

    def _visit_body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for stmt in body:
            new = self.visit(stmt)
            if new is None:
                continue
            result.extend(new if isinstance(new, list) else [new])
        return result

    # -- pattern matching ------------------------------------------------------
    def visit_Match(self, node: ast.Match) -> ast.AST | list[ast.stmt]:
        # ``case C(a, b)`` reads the attributes named by ``C.__match_args__`` natively.
        # The subject is evaluated first, as before; then each such class is vetted by
        # the guard, which returns the class the pattern matches against.
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
        # Private-looking names: mangled in class bodies, so an Enum body keeps them out
        # of its members.
        subject = f"__match_subject_{self._matches}"
        prelude: list[ast.stmt] = [_assign(subject, node.subject, node)]
        node.subject = _name(subject, node.subject)
        guard = ast.Subscript(
            ast.Attribute(_name(GETATTR, node), "__globals__", ast.Load()),
            ast.Constant(MATCH_CLASS),
            ast.Load(),
        )
        for index, pattern in enumerate(classes, 1):
            ident = f"__match_class_{self._matches}_{index}"
            prelude.append(_assign(ident, ast.Call(guard, [pattern.cls], []), pattern))
            pattern.cls = _name(ident, pattern.cls)
        for stmt in prelude:
            ast.fix_missing_locations(stmt)
        return [*prelude, node]

    def _visit_children(self, node: ast.AST) -> ast.AST:
        return self.node_contents_visit(node)

    visit_match_case = visit_MatchValue = visit_MatchSingleton = _visit_children
    visit_MatchSequence = visit_MatchMapping = visit_MatchOr = _visit_children

    def visit_MatchClass(self, node: ast.MatchClass) -> ast.AST:
        # Keyword patterns read attributes natively: hold them to the attribute rules.
        for attr in node.kwd_attrs:
            if attr.startswith("_") or attr in INSPECT_ATTRIBUTES or attr in RUNTIME_CHECKED_ATTRS:
                self.error(node, f'"{attr}" cannot be matched as an attribute.')
        return self.node_contents_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> ast.AST:
        self.check_name(node, node.name)
        return self.node_contents_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> ast.AST:
        self.check_name(node, node.name)
        return node

    # -- the module --------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> ast.AST:
        node = self.node_contents_visit(node)
        if node.body and isinstance(node.body[-1], ast.Expr):
            last = node.body[-1]
            call = ast.Call(_name(LAST_EXPR, last), [last.value], [])
            copy_locations(call, last)
            last.value = call
        return node


def compile_script(source: str, filename: str) -> CodeType | CompileFailure:
    """Compile ``source`` under the sandbox's rules.

    Returns a code object, or a :class:`CompileFailure` describing what the script must
    change. Never raises for bad input.
    """
    try:
        tree = ast.parse(source, filename, "exec")
    except SyntaxError as exc:
        return CompileFailure("syntax", format_syntax_error(exc))
    except (RecursionError, MemoryError, ValueError) as exc:
        return CompileFailure("syntax", f"the script could not be parsed: {type(exc).__name__}")
    transformer = SandboxTransformer()
    try:
        tree = transformer.visit(tree)
    except RecursionError:
        return CompileFailure("policy", "the script is nested too deeply to be checked.")
    if transformer.errors:
        return CompileFailure("policy", "\n".join(transformer.errors))
    try:
        return compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return CompileFailure("syntax", format_syntax_error(exc))
    except (RecursionError, MemoryError) as exc:
        return CompileFailure("syntax", f"the script could not be compiled: {type(exc).__name__}")


def format_syntax_error(exc: SyntaxError) -> str:
    """Render a SyntaxError the way Python prints it, without host file paths."""
    where = f"line {exc.lineno}" if exc.lineno else "unknown line"
    text = f"SyntaxError: {exc.msg} ({where})"
    if exc.text:
        line = exc.text.rstrip("\n")
        caret = ""
        if exc.offset and exc.offset > 0:
            indent = len(line) - len(line.lstrip())
            caret = "\n    " + " " * max(exc.offset - 1 - indent, 0) + "^"
        text += "\n    " + line.strip() + caret
    return text


def compile_plain(source: str, filename: str) -> CodeType | CompileFailure:
    """Compile without restrictions (the ``language`` layer is off), keeping only the
    capture of the last expression's value."""
    try:
        tree = ast.parse(source, filename, "exec")
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = tree.body[-1]
            call = ast.Call(_name(LAST_EXPR, last), [last.value], [])
            copy_locations(call, last)
            last.value = call
        return compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return CompileFailure("syntax", format_syntax_error(exc))
    except (RecursionError, MemoryError, ValueError) as exc:
        return CompileFailure("syntax", f"the script could not be compiled: {type(exc).__name__}")
