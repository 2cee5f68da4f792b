"""Restricted compilation: RestrictedPython's checks, with native code where it is safe.

Stock RestrictedPython routes every attribute load, subscript, iteration, unpacking and
augmented assignment through a guard function, which costs 2-5x at run time. This
transformer keeps every compile-time check (no dunder or guard-like names, no
frame/code attributes; ``eval``/``exec`` compile with this transformer too, and
``async`` code runs on the sandbox's own event loop) but emits plain bytecode for
operations that cannot reach anything the script does not already hold:

- subscripts, iteration, unpacking, ``name += x`` and calls run natively;
- attribute loads run natively unless the name is in ``RUNTIME_CHECKED_ATTRS``
  (``str.format`` and friends) or private (``obj._cache``), which go through the
  attribute guard (``names.GETATTR``);
- attribute stores and deletes go through the write guard (``names.WRITE``; with the
  attribute's name when it is private);
- every ``except`` handler starts with a call of ``names.RERAISE`` so that the
  sandbox's own control exceptions (result helpers, limits) cannot be swallowed.

Names follow one rule (``names.py``): every identifier field of every accepted node
type is checked as written and as CPython mangles it; node types the rule does not list
are refused; the names generated here hold a ``.``, so no script can spell or rebind
them.

Where the guards inspect a script's value before deciding, they never call a method
the script could override (a ``str`` subclass answers ``in``, ``startswith`` or
``isidentifier`` as it likes). The fast paths and why each is safe:

- attribute names (``getattr``/``hasattr``/``setattr``/``delattr``, the write guard,
  ``operator.attrgetter``/``methodcaller``): ``type(name) is str`` first, then the
  checks; ``attrgetter`` splits with ``str.split`` itself;
- ``str.format``/``format_map`` (bound, unbound, through ``super()``): the template is
  copied into an exact ``str`` (``str.__str__``) before ``"." in template`` decides
  whether the native method may run, and the native method runs on that copy;
- ``%`` formatting, f-strings and ``format()``: no fast path to guard — they never walk
  attributes (``%`` looks keys up in the mapping, f-string fields are expressions the
  compiler checks like any other);
- subscript keys: not inspected at all (a subscript reaches only what the script
  holds);
- class patterns: ``__match_args__`` must be an exact ``tuple`` of exact ``str``; the
  checked tuple is frozen into a stand-in class held under a generated name, so nothing
  the script runs afterwards changes which attributes the match reads;
- class statements: keywords must be exact ``str``; bases are compared by identity with
  real classes (stand-ins refused);
- ``dataclass`` field names and the functional ``Enum``'s member names:
  ``type(name) is str`` before ``isidentifier()``;
- ``print``'s ``sep`` and ``end``: copied into exact ``str`` before they are used;
- private members: decided from the object's real class and class dictionaries, with
  an index of library-defined names built once per script class; no method of the
  object runs.

The worker imports this module, so it depends on the standard library and
RestrictedPython only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import CodeType
from typing import Any

from RestrictedPython.transformer import copy_locations

from sandbox.worker.language.imports import ImportRules, leading_future_imports
from sandbox.worker.language.match_patterns import MatchPatterns
from sandbox.worker.language.membrane_nodes import name_checks, write_guarded
from sandbox.worker.language.membrane_positions import MembranePositions
from sandbox.worker.language.names import (
    DEFINABLE_DUNDERS,
    GENERATED_NAMES,
    GETATTR,
    GUARD_NAMES,
    HANDLED,
    LAST_EXPR,
    MATCH_CLASS,
    NODE_FIELDS,
    READABLE_DUNDERS,
    READABLE_NAMES,
    REFUSED_NODES,
    RERAISE,
    RESERVED_NAMES,
    RUNTIME_CHECKED_ATTRS,
    WRITE,
    attribute_error,
    is_private_name,
    name_error,
)
from sandbox.worker.language.syntax import (
    CompileFailure,
    compile_plain,
    format_syntax_error,
    name_node,
)
from sandbox.worker.language.toplevel import TopLevel, outer_file

#: The names the rest of the sandbox imports from here.
__all__ = [
    "GETATTR",
    "GUARD_NAMES",
    "LAST_EXPR",
    "MATCH_CLASS",
    "READABLE_DUNDERS",
    "RERAISE",
    "RUNTIME_CHECKED_ATTRS",
    "WRITE",
    "CompileFailure",
    "SandboxTransformer",
    "compile_plain",
    "compile_script",
    "format_syntax_error",
    "is_private_name",
]

_NONE: frozenset[str] = frozenset()
TOP_LEVEL_AWAIT = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


class SandboxTransformer(ImportRules, MembranePositions, MatchPatterns):
    """RestrictedPython's transformer, trimmed to the guards this sandbox relies on.

    Node types missing from ``names.NODE_FIELDS`` are refused; every identifier field
    listed there is checked by the name rule or the attribute rule; every position
    where native code hands script code a value passes it through the membrane
    (``membrane_positions.py``).
    """

    def __init__(self) -> None:
        super().__init__()
        # True while visiting the statements directly inside a class body.
        self._in_class_body = False
        # The innermost enclosing class: what CPython mangles ``__x`` with.
        self._private: str | None = None
        self._matches = 0

    def _resolve(self, cls: type) -> Callable[[Any], Any]:
        name = cls.__name__
        if name in NODE_FIELDS:
            return super()._resolve(cls)
        reason = REFUSED_NODES.get(name, "it is not known to the sandbox's compiler")

        def refuse(node: ast.AST) -> None:
            self.error(node, f"{name} statements are not allowed: {reason}.")

        self._methods[cls] = refuse
        return refuse

    # -- names -------------------------------------------------------------------
    def _check(
        self, node: ast.AST, name: str | None, definable: frozenset[str] = frozenset()
    ) -> None:
        if name is not None:
            error = name_error(name, self._private, definable)
            if error is not None:
                self.error(node, error)

    def check_name(
        self, node: ast.AST, name: str | None, allow_magic_methods: bool = False
    ) -> None:
        # RestrictedPython's own visitors (walrus...) end up here: the same rule.
        definable = DEFINABLE_DUNDERS if allow_magic_methods and self._in_class_body else _NONE
        self._check(node, name, definable)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        name = node.id
        # The common case, decided without the generic checks below: a public
        # identifier is never mangled.
        if (
            name[0] != "_"
            and name not in RESERVED_NAMES
            and name.isidentifier()
            and not name.endswith("__roles__")
        ):
            return node
        if name in GENERATED_NAMES:
            return node  # made by this transformer: no script can spell it
        if isinstance(node.ctx, ast.Load):
            # ``print`` is the sandbox's capturing builtin, not RestrictedPython's
            # collector; ``if __name__ == "__main__":`` is common in scripts.
            if name != "print":
                self._check(node, name, READABLE_NAMES)
            return node
        # ``__slots__ = ...``, ``__init__ = helper``, ``__hash__ = None`` in a class body.
        self._check(node, name, DEFINABLE_DUNDERS if self._in_class_body else _NONE)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        self._check(node, node.arg)
        if node.annotation is not None:
            node.annotation = self.outside_inline(node.annotation)
        self.visit_other_fields(node, "annotation")
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        # Call keywords are not mangled by CPython; they still follow the rule.
        if node.arg is not None:
            error = name_error(node.arg, None)
            if error is not None:
                self.error(node, error)
        return self.node_contents_visit(node)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> ast.AST:
        for name in node.names:
            self._check(node, name)
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.AST:
        return self.visit_Global(node)

    # -- attributes --------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        attr = node.attr
        loading = isinstance(node.ctx, ast.Load)
        error = attribute_error(attr, self._private, loading)
        if error is not None:
            self.error(node, error)
        consumed = loading and self.is_consumed(node)
        node.value = self.visit(node.value)
        if loading:
            read: ast.expr = node
            if attr in RUNTIME_CHECKED_ATTRS or is_private_name(attr):
                read = ast.Call(name_node(GETATTR, node), [node.value, ast.Constant(attr)], [])
                copy_locations(read, node)
            # A library object's attribute may hold anything (``partial(...).func``).
            return read if consumed else self.entered(read, node)
        if is_private_name(attr):
            # A private name goes with the object: the guard checks whose member it is.
            wrapped: ast.expr = ast.Call(
                name_node(WRITE, node.value), [node.value, ast.Constant(attr)], []
            )
            copy_locations(wrapped, node.value)
        else:
            wrapped = write_guarded(node.value, node.value)
        node.value = wrapped
        return node

    # -- operations that run natively --------------------------------------------
    def _visit_children(self, node: ast.AST) -> ast.AST:
        return self.node_contents_visit(node)

    visit_comprehension = _visit_children

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        # A Name target rebinds a local; a Subscript target runs natively; an
        # Attribute target becomes ``_write_(obj).attr += value`` via visit_Attribute,
        # which reads ``attr`` natively: never one that needs the run-time check.
        target = node.target
        if isinstance(target, ast.Attribute) and target.attr in RUNTIME_CHECKED_ATTRS:
            self.error(node, f'"{target.attr}" cannot be the target of an augmented assignment.')
        return self.node_contents_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        # ``eval``/``exec`` are the sandbox's (``evaluate.py``): the same compiler.
        consumed = self.is_consumed(node)
        if self.native_method_call(node):
            return node if consumed else self.entered(node, node)
        node = self.node_contents_visit(node)
        if consumed or (isinstance(node.func, ast.Name) and node.func.id in GENERATED_NAMES):
            return node  # a value used and dropped; the sandbox's own guards
        return self.entered(node, node)

    # -- exception handlers --------------------------------------------------------
    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        node = self.node_contents_visit(node)
        self._check(node, node.name)
        if node.type is not None:
            # ``except MemoryError`` catches the real one (``memory_errors.py``).
            handled = ast.Call(name_node(HANDLED, node.type), [node.type], [])
            copy_locations(handled, node.type)
            node.type = handled
        reraise = ast.Expr(ast.Call(name_node(RERAISE, node), [], []))
        copy_locations(reraise, node)
        checks = name_checks([node.name], node) if node.name else []
        node.body[0:0] = [reraise, *checks]
        return node

    # -- definitions -------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Any:
        self._check(node, node.name, DEFINABLE_DUNDERS if self._in_class_body else _NONE)
        # Decorators and defaults run in the enclosing scope; annotations anywhere.
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        if node.returns is not None:
            node.returns = self.outside_inline(node.returns)
        self.visit_other_fields(node, "decorator_list", "args", "returns", "body")
        outer = self._in_class_body, self._inline
        self._in_class_body, self._inline = False, True
        try:
            node.body = self._visit_body(node.body)
        finally:
            self._in_class_body, self._inline = outer
        self.check_parameters(node)
        return self.decorated(node)

    # ``await``, ``async for``, ``async with``: the loop is the sandbox's own
    # (``script_asyncio.py``); what they await is the script's.
    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node.args = self.visit(node.args)
        self.visit_other_fields(node, "args", "body")
        outer = self._in_class_body, self._inline
        self._in_class_body, self._inline = False, True
        try:
            node.body = self.visit(node.body)
        finally:
            self._in_class_body, self._inline = outer
        self.parameter_guard(node)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        self._check(node, node.name)
        for keyword in node.keywords:
            # Class keywords go to library code (``__init_subclass__``, ``__new__``):
            # never ``metaclass``, never an underscore name (``_root=True``).
            if keyword.arg == "metaclass":
                self.error(node, 'The keyword argument "metaclass" is not allowed.')
            elif keyword.arg is not None and keyword.arg.startswith("_"):
                self.error(node, f'"{keyword.arg}" cannot be a class keyword.')
        # ``class A(object):`` means ``class A:``; the name ``object`` is not provided.
        node.bases = [b for b in node.bases if not (isinstance(b, ast.Name) and b.id == "object")]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        self.visit_other_fields(node, "bases", "keywords", "decorator_list", "body")
        outer = self._in_class_body, self._private
        self._in_class_body, self._private = True, node.name
        try:
            node.body = self._visit_body(node.body)
        finally:
            self._in_class_body, self._private = outer
        return self.decorated(node)

    def _visit_body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for stmt in body:
            new = self.visit(stmt)
            if new is None:
                continue
            result.extend(new if isinstance(new, list) else [new])
        return result

    # -- pattern matching (the visitors are MatchPatterns') ----------------------
    def visit_MatchValue(self, node: ast.MatchValue) -> ast.AST:
        # ``case Color.RED:`` must stay a dotted name (a call there is no pattern): its
        # attributes are read natively, so each follows the read rule here, and none
        # may be one the run-time guard decides.
        chain = node.value
        while isinstance(chain, ast.Attribute):
            error = attribute_error(chain.attr, self._private, True)
            if error is None and (
                chain.attr in RUNTIME_CHECKED_ATTRS or is_private_name(chain.attr)
            ):
                error = f'"{chain.attr}" cannot be read in a value pattern.'
            if error is not None:
                self.error(chain, error)
            chain = chain.value
        if isinstance(chain, ast.Name):
            if self.visit(chain) is not chain:
                self.error(chain, f'"{chain.id}" cannot be read in a value pattern.')
            return node
        return self.node_contents_visit(node)

    visit_MatchSingleton = _visit_children
    visit_MatchSequence = visit_MatchOr = _visit_children

    # -- the module --------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> ast.AST:
        self._future_at_top = leading_future_imports(node.body)
        node = self.node_contents_visit(node)
        if node.body and isinstance(node.body[-1], ast.Expr):
            last = node.body[-1]
            call = ast.Call(name_node(LAST_EXPR, last), [last.value], [])
            copy_locations(call, last)
            last.value = call
        return node


def _where(filename: str, source: str, node: ast.AST) -> tuple[str, int, int, str]:
    lines = source.splitlines()
    number = getattr(node, "lineno", 0)
    text = lines[number - 1] if 0 < number <= len(lines) else ""
    return filename, number, getattr(node, "col_offset", 0) + 1, text


def compile_script(
    source: str, filename: str, *, top_level_function: bool = True
) -> CodeType | CompileFailure:
    """Compile ``source`` under the sandbox's rules.

    Returns a code object, or a :class:`CompileFailure` describing what the script must
    change. Never raises for bad input. The top level runs as a function binding the
    script's globals (``toplevel.py``); ``top_level_function=False`` keeps module code,
    for callers that run it with a separate locals mapping.
    """
    try:
        tree = ast.parse(source, filename, "exec")
    except SyntaxError as exc:
        return CompileFailure("syntax", format_syntax_error(exc))
    except (RecursionError, MemoryError, ValueError) as exc:
        return CompileFailure("syntax", f"the script could not be parsed: {type(exc).__name__}")
    transformer = SandboxTransformer()
    try:
        top = TopLevel(tree) if top_level_function else None
        tree = transformer.visit(tree)
    except RecursionError:
        return CompileFailure("policy", "the script is nested too deeply to be checked.")
    if transformer.errors:
        return CompileFailure("policy", "\n".join(transformer.errors))
    misplaced = top.misplaced if top is not None else None
    wrapped = top.as_function(tree) if top is not None and not top.stays_module else None
    if misplaced is not None:
        # The top level runs as a function: CPython would no longer refuse these.
        keyword = "return" if isinstance(misplaced, ast.Return) else "yield"
        error = SyntaxError(f"'{keyword}' outside function", _where(filename, source, misplaced))
        return CompileFailure("syntax", format_syntax_error(error))
    try:
        # Top-level ``await``: the code object is then a coroutine the runtime runs on
        # the sandbox's event loop.
        code: CodeType = compile(
            wrapped or tree,
            filename,
            "exec",
            TOP_LEVEL_AWAIT | transformer.future_flags,
            dont_inherit=True,
        )
        return code if wrapped is None else outer_file(code)
    except SyntaxError as exc:
        return CompileFailure("syntax", format_syntax_error(exc))
    except (RecursionError, MemoryError) as exc:
        return CompileFailure("syntax", f"the script could not be compiled: {type(exc).__name__}")
