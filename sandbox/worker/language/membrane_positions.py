"""Where values enter script code: the positions the compiler passes through the membrane.

:data:`POSITIONS` says, for every AST node type the compiler accepts, whether native
code can hand a value to script code there and how it is checked (a test walks ``ast``
so that a new node type cannot go unlisted; the fuzzer in ``tests/fuzz`` hands values
over at every position in every scope). The checked positions:

- parameters of functions and lambdas (native code calls back with any argument);
- results of calls, ``await`` and ``yield`` (a generator's sent value), unless the
  statement discards them;
- names bound by iteration (``for``, ``async for``, comprehensions), by unpacking, by
  ``with ... as``, ``except ... as`` and ``match`` captures, and by a decorator;
- items taken out of a container by a subscript, and attributes read (a library
  object's attribute may hold anything: ``functools.partial(f).func``).

A value used and dropped is not checked (:data:`CONSUMING`: a truth test, a comparison,
a discarded call, a loop's iterable...; an object read by a subscript, whose item is).
A method call ``obj.m(...)`` stays a native method call: its receiver is checked with
its method (``membrane.method_of``; none for the builtin types, whose attributes are
their own methods). The checks themselves are built in ``membrane_nodes.py``.

Worker side: standard library and RestrictedPython only.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from sandbox.worker.language.fastwalk import FastNodeTransformer, child_fields
from sandbox.worker.language.membrane_nodes import (
    checked_items,
    collected_parameters,
    detached_target,
    entered_call,
    entered_inline,
    is_docstring,
    item_target,
    item_values,
    items_checks,
    items_guard,
    location,
    method_receiver,
    name_checks,
    name_guard,
    parameters,
    pattern_names,
    target_names,
    unpacked,
)
from sandbox.worker.language.names import (
    ENTER,
    ENTER_OPERAND,
    HELD,
    HELD_IN_COMPREHENSION,
    RUNTIME_CHECKED_ATTRS,
    attribute_error,
    is_private_name,
)
from sandbox.worker.language.proxied_dicts import OPERATORS

_CHECKED = "checked: a value native code hands to script code passes the membrane here"
_BUILT = "built by the script from values it holds"
_HELD = "reads an object the script holds (attribute names follow the name rule)"
_COMPOSED = "passes on a value already checked where it was produced"
_NONE = "no value enters here"

#: Every node type the compiler accepts (``names.NODE_FIELDS``), and what enters there.
POSITIONS: dict[str, str] = {
    # Positions.
    "Call": _CHECKED + " (its result, unless discarded)",
    "Await": _CHECKED + " (its result, unless discarded)",
    "Yield": _CHECKED + " (the value sent, unless discarded)",
    "YieldFrom": _CHECKED + " (the generator's return value, unless discarded)",
    "FunctionDef": _CHECKED + " (parameters; the decorated result)",
    "AsyncFunctionDef": _CHECKED + " (parameters; the decorated result)",
    "Lambda": _CHECKED + " (parameters)",
    "ClassDef": _CHECKED + " (the decorated result; the class itself is build_class's)",
    "For": _CHECKED + " (every name its target binds)",
    "AsyncFor": _CHECKED + " (every name its target binds)",
    "comprehension": _CHECKED + " (every name its target binds)",
    "Assign": _CHECKED + " (unpacking: each item of the value)",
    "With": _CHECKED + " (the names ``as`` binds, item by item)",
    "AsyncWith": _CHECKED + " (the names ``as`` binds, item by item)",
    "withitem": _CHECKED + " (in With)",
    "ExceptHandler": _CHECKED + " (the name ``as`` binds)",
    "match_case": _CHECKED + " (every capture, before the guard)",
    "MatchAs": _CHECKED + " (in match_case)",
    "MatchStar": _CHECKED + " (in match_case)",
    "MatchMapping": _CHECKED + " (in match_case)",
    "MatchSequence": _CHECKED + " (in match_case)",
    "MatchClass": _CHECKED + " (in match_case)",
    "MatchOr": _CHECKED + " (in match_case)",
    "arguments": _CHECKED + " (in FunctionDef and Lambda; ``*args``/``**kwargs`` item by item)",
    "arg": _CHECKED + " (in FunctionDef and Lambda)",
    "Subscript": _CHECKED + " (the item, when it is read)",
    "Attribute": _CHECKED + " (the value read; names follow the attribute rule first)",
    # Values the script builds.
    **dict.fromkeys(
        "Dict Set List Tuple ListComp SetComp DictComp GeneratorExp JoinedStr "
        "FormattedValue Constant Slice".split(),
        _BUILT,
    ),
    # One of the operands, already checked where it entered.
    **dict.fromkeys(
        "BoolOp IfExp NamedExpr Starred keyword AnnAssign".split(),
        _COMPOSED,
    ),
    # Reads of what the script holds.
    **dict.fromkeys("BinOp UnaryOp Compare AugAssign".split(), _HELD),
    "Name": "variables hold checked values; builtins and proxies are the sandbox's",
    "alias": "module proxies and their members are vetted when the proxy is built",
    **dict.fromkeys(
        "Module Expr While If Match Raise Try Assert Import ImportFrom Return Delete Pass "
        "Break Continue Global Nonlocal MatchValue MatchSingleton".split(),
        _NONE,
    ),
    **dict.fromkeys(
        "Load Store Del And Or Add Sub Mult MatMult Div Mod Pow LShift RShift BitOr BitXor "
        "BitAnd FloorDiv Invert Not UAdd USub Eq NotEq Lt LtE Gt GtE Is IsNot In "
        "NotIn".split(),
        _NONE,
    ),
}


#: Nodes whose value is checked where it enters (unless consumed).
_ENTERING = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.Subscript, ast.Attribute)

#: Fields whose value is used and dropped, never held: a call there needs no check (a
#: truth test, a comparison, formatting, raising, iterating or entering a context, a
#: match subject, an awaited value). An operator's operand: a value no script may hold
#: gives, by an operator, at most a new value of its own type's making (``type | int``
#: a union, whose members only ``typing.get_args`` hands out, through the membrane) or
#: an error; checking operands would cost every arithmetic loop. Not a returned or a
#: yielded value: a native caller may keep those (``map`` hands a returned value to
#: another native function), so a call, attribute or subscript there is checked.
CONSUMING: dict[str, tuple[str, ...]] = {
    "BinOp": ("left", "right"),
    "UnaryOp": ("operand",),
    "Expr": ("value",),
    "If": ("test",),
    "While": ("test",),
    "Assert": ("test",),
    "IfExp": ("test",),
    "Compare": ("left", "comparators"),
    "FormattedValue": ("value",),
    "Raise": ("exc", "cause"),
    "Await": ("value",),
    "YieldFrom": ("value",),
    "For": ("iter",),
    "AsyncFor": ("iter",),
    "comprehension": ("iter", "ifs"),
    "withitem": ("context_expr",),
    "Match": ("subject",),
}


class MembranePositions(FastNodeTransformer):
    """The membrane's half of the sandbox's transformer (``compiler.py``)."""

    if TYPE_CHECKING:
        _in_class_body: bool
        _private: str | None

        def _visit_body(self, body: list[ast.stmt]) -> list[ast.stmt]: ...

    def __init__(self) -> None:
        super().__init__()
        # Whether an assignment expression may hold a checked value here.
        self._inline = True
        # How many comprehensions enclose the node being visited (in this scope).
        self._comprehensions = 0
        self._consumed: set[int] = set()

    # -- values used and dropped ------------------------------------------------------
    def is_consumed(self, node: ast.AST) -> bool:
        """Whether ``node``'s value is used and dropped (see :data:`CONSUMING`)."""
        if id(node) in self._consumed:
            self._consumed.discard(id(node))
            return True
        return False

    def consumed_receiver(self, node: ast.expr) -> ast.expr:
        """A method call's receiver: checked with its method (``checked_receiver``),
        not on its own."""
        if isinstance(node, _ENTERING):
            self._consumed.add(id(node))
        return node

    def _mark_consumed(self, node: ast.AST) -> None:
        for field in CONSUMING.get(type(node).__name__, ()):
            value = getattr(node, field, None)
            for child in value if isinstance(value, list) else (value,):
                if isinstance(child, _ENTERING):
                    self._consumed.add(id(child))

    def _consuming(self, node: ast.AST) -> ast.AST:
        self._mark_consumed(node)
        return self.node_contents_visit(node)

    visit_Expr = visit_If = visit_While = visit_Assert = _consuming
    visit_IfExp = visit_Compare = visit_FormattedValue = visit_Raise = _consuming
    visit_BinOp = visit_UnaryOp = _consuming

    def visit_withitem(self, node: ast.withitem) -> ast.AST:
        return self._consuming(node)

    def visit_Match(self, node: ast.Match) -> ast.AST | list[ast.stmt]:
        self._mark_consumed(node)
        return super().visit_Match(node)  # type: ignore[no-any-return]

    def visit_Await(self, node: ast.Await | ast.Yield | ast.YieldFrom) -> ast.AST:
        consumed = self.is_consumed(node)
        node = self._consuming(node)  # type: ignore[assignment]
        return node if consumed else self.entered(node, node)

    visit_Yield = visit_YieldFrom = visit_Await

    def visit_other_fields(self, node: ast.AST, *done: str) -> None:
        """Visit the child fields of ``node`` a visitor did not handle itself (those a
        later Python adds, such as 3.12's ``type_params``, are then checked too)."""
        for field in child_fields(type(node)):
            if field in done:
                continue
            value = getattr(node, field, None)
            if type(value) is list:
                visited = [self.visit(v) if isinstance(v, ast.AST) else v for v in value]
                setattr(node, field, [v for v in visited if v is not None])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))

    def outside_inline(self, node: ast.expr) -> ast.expr:
        """Visit ``node`` where no assignment expression may stand (annotations,
        comprehension iterables)."""
        outer, self._inline = self._inline, False
        try:
            return self.visit(node)  # type: ignore[no-any-return]
        finally:
            self._inline = outer

    # -- where values enter ---------------------------------------------------------
    def entered(self, value: ast.expr, where: ast.AST) -> ast.expr:
        """``value`` passed through the membrane (inline where the scope allows)."""
        if self._inline and not self._in_class_body:
            # Inside a comprehension, an assignment expression binds in the enclosing
            # function: a name of its own there keeps ``.held`` a fast local (not a cell).
            held = HELD_IN_COMPREHENSION if self._comprehensions else HELD
            return entered_inline(value, where, held)
        return entered_call(value, where)

    def native_method_call(self, node: ast.Call) -> bool:
        """Visit ``obj.method(...)`` as a native method call (no bound method made): the
        receiver checked with its method. False (nothing visited) for other calls."""
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr not in RUNTIME_CHECKED_ATTRS
            and not is_private_name(func.attr)
            and attribute_error(func.attr, self._private, True) is None
        ):
            return False
        func.value = self.visit(self.consumed_receiver(func.value))
        func.value = self.checked_receiver(func.value, func.attr, func)
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [self.visit(k) for k in node.keywords]
        return True

    def checked_receiver(self, receiver: ast.expr, method: str, where: ast.AST) -> ast.expr:
        """A method call's receiver and its method checked, the call kept native."""
        if self._inline and not self._in_class_body:
            held = HELD_IN_COMPREHENSION if self._comprehensions else HELD
            return method_receiver(receiver, method, where, held)
        return method_receiver(receiver, method, where, None)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        consumed = self.is_consumed(node)
        if isinstance(node.ctx, ast.Load):
            # Read from, not held: no value a script may not hold gives anything by a
            # subscript but an item, which is checked (a store's object is checked).
            self.consumed_receiver(node.value)
        node = self.node_contents_visit(node)
        if consumed or not isinstance(node.ctx, ast.Load):
            return node
        return self.entered(node, node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        node = self.node_contents_visit(node)
        value = node.value
        unpacking = any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
        display = isinstance(value, (ast.Tuple, ast.List)) and not any(
            isinstance(e, ast.Starred) for e in value.elts
        )
        if unpacking and not display:
            # ``a, b = pair``: each item comes out of the value natively.
            node.value = unpacked(value, value)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        node.target = self.visit(node.target)
        node.annotation = self.outside_inline(node.annotation)
        if node.value is not None:
            node.value = self.visit(node.value)
        self.visit_other_fields(node, "target", "annotation", "value")
        return node

    # -- names bound by native code -----------------------------------------------------
    def visit_For(self, node: ast.For | ast.AsyncFor) -> ast.AST:
        found = target_names(node.target)
        if found is None:
            node.body.insert(0, detached_target(node.target, node.target))
            node.target = item_target(node.target)
        self._mark_consumed(node)
        node = self.node_contents_visit(node)
        if found is not None:
            node.body[0:0] = name_checks(found, node.target)
        return node

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> ast.AST:
        if len(node.items) > 1:
            # ``with a as x, b(x) as y``: x is checked before ``b(x)`` runs, as nested
            # statements (the meaning CPython gives several items).
            inner = type(node)(items=node.items[1:], body=node.body, **location(node))
            node.items, node.body = node.items[:1], [inner]
        (item,) = node.items
        target = item.optional_vars
        found = None if target is None else target_names(target)
        if target is not None and found is None:
            node.body.insert(0, detached_target(target, target))
            item.optional_vars = item_target(target)
        node = self.node_contents_visit(node)
        if found is not None:
            node.body[0:0] = name_checks(found, node)
        return node

    visit_AsyncWith = visit_With

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        node = self.node_contents_visit(node)
        guard = name_guard(pattern_names(node.pattern), node.pattern)
        if guard is not None:
            # Before the guard, which may use the captures.
            node.guard = guard if node.guard is None else ast.BoolOp(ast.And(), [guard, node.guard])
            ast.copy_location(node.guard, guard)
        return node

    def _visit_comprehension_node(self, node: ast.AST) -> ast.AST:
        generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        for generator in list(generators):
            if target_names(generator.target) is None:
                # ``for self.x in xs``: the loop binds an item, checked as it is stored.
                store = detached_target(generator.target, generator.target)
                values = item_values(store.value, generator.target)
                check = ast.comprehension(store.targets[0], values, generator.ifs, 0)
                generator.target, generator.ifs = item_target(generator.target), []
                generators.insert(generators.index(generator) + 1, check)
        for generator in generators:
            self._mark_consumed(generator)
            generator.iter = self.outside_inline(generator.iter)
            generator.target = self.visit(generator.target)
            self._comprehensions += 1
            try:
                generator.ifs = [self.visit(test) for test in generator.ifs]
            finally:
                self._comprehensions -= 1
        self._comprehensions += 1
        try:
            for field in ("elt", "key", "value"):
                if hasattr(node, field):
                    setattr(node, field, self.visit(getattr(node, field)))
        finally:
            self._comprehensions -= 1
        self.visit_other_fields(node, "generators", "elt", "key", "value")
        checked: list[ast.comprehension] = []
        for generator in generators:
            checked.append(generator)
            names_check = checked_items(target_names(generator.target) or [], generator.target)
            if names_check is not None:
                names_check.ifs, generator.ifs = generator.ifs, []
                checked.append(names_check)
        generators[:] = checked
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = _visit_comprehension_node
    visit_GeneratorExp = _visit_comprehension_node

    # -- definitions ------------------------------------------------------------------
    def check_parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Check the parameters first (after the docstring): native code calls back
        with any argument."""
        docstring = int(bool(node.body) and is_docstring(node.body[0]))
        # An operator method a mapping proxy's operators reach: dicts arrive as copies.
        operator = self._in_class_body and node.name in OPERATORS
        checks = name_checks(parameters(node.args), node, ENTER_OPERAND if operator else ENTER)
        checks += items_checks(collected_parameters(node.args), node, operator)
        node.body[docstring:docstring] = checks

    def parameter_guard(self, node: ast.Lambda) -> None:
        """A lambda's parameters, checked before its body."""
        parts = [name_guard(parameters(node.args), node)]
        parts.append(items_guard(collected_parameters(node.args), node))
        checks = [part for part in parts if part is not None]
        guard = checks[0] if len(checks) == 1 else None
        if len(checks) > 1:
            guard = ast.BoolOp(ast.And(), checks, **location(node))
        if guard is not None:
            node.body = ast.BoolOp(ast.And(), [guard, node.body])
            ast.copy_location(node.body, guard)

    def decorated(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Any:
        """``node``, then the check of the name its decorators' result is bound to."""
        if not node.decorator_list:
            return node
        return [node, *name_checks([node.name], node)]
