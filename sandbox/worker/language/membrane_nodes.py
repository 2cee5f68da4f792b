"""The checks the compiler writes where values enter script code (``membrane.py``).

Each is inline where the scope allows it: ``(.held if .exact_type(.held := v) in
.harmless else .enter(.held))`` costs an exact-type set lookup and no call for the
values scripts hold most (``membrane.HARMLESS_TYPES``). Where an assignment expression
may not stand (class bodies, comprehension iterables, annotations) it is the call
``.enter(v)``. A name bound by native code is checked right after it is bound:
``if .exact_type(x) not in .harmless: x = .enter(x)``.

Every node is built with its location (cheaper than fixing locations afterwards).

Worker side: standard library only.
"""

from __future__ import annotations

import ast
from typing import Any

from sandbox.worker.language.membrane import NAMESPACE_CHANGERS
from sandbox.worker.language.names import (
    ENTER,
    ENTER_ITEMS,
    EXACT_TYPE,
    HARMLESS,
    HELD,
    ITEM,
    METHOD_OF,
    RECEIVERS,
    RECEIVERS_UNCHANGED,
    SCRIPT_TYPES,
    UNPACK,
    WRITE,
)

Location = dict[str, Any]
_LOAD, _STORE = ast.Load(), ast.Store()


def location(where: ast.AST) -> Location:
    """``where``'s location, for the nodes built in its place."""
    return {
        "lineno": getattr(where, "lineno", 1),
        "col_offset": getattr(where, "col_offset", 0),
        "end_lineno": getattr(where, "end_lineno", None),
        "end_col_offset": getattr(where, "end_col_offset", None),
    }


def _name(ident: str, loc: Location, ctx: ast.expr_context = _LOAD) -> ast.Name:
    return ast.Name(ident, ctx, **loc)


def _call(func: str, loc: Location, *args: ast.expr) -> ast.Call:
    return ast.Call(_name(func, loc), list(args), [], **loc)


def _type_test(value: ast.expr, loc: Location, op: ast.cmpop) -> ast.Compare:
    """``.exact_type(value) in .harmless`` (or ``not in``)."""
    exact = _call(EXACT_TYPE, loc, value)
    return ast.Compare(exact, [op], [_name(HARMLESS, loc)], **loc)


def entered_call(value: ast.expr, where: ast.AST) -> ast.expr:
    """``.enter(value)``: where no assignment expression may stand."""
    return _call(ENTER, location(where), value)


def entered_inline(value: ast.expr, where: ast.AST, held: str = HELD) -> ast.expr:
    """``(.held if .exact_type(.held := value) in .harmless else .enter(.held))``."""
    loc = location(where)
    store = ast.NamedExpr(_name(held, loc, _STORE), value, **loc)
    test = _type_test(store, loc, ast.In())
    return ast.IfExp(test, _name(held, loc), _call(ENTER, loc, _name(held, loc)), **loc)


def write_guarded(value: ast.expr, where: ast.AST) -> ast.expr:
    """``.write(value)``, the store guard; for a name, without a call when it holds an
    instance of a script class: ``(x if .exact_type(x) in .script_types else .write(x))``."""
    loc = location(where)
    if not isinstance(value, ast.Name):
        return _call(WRITE, loc, value)
    test = ast.Compare(
        _call(EXACT_TYPE, loc, _name(value.id, loc)), [ast.In()], [_name(SCRIPT_TYPES, loc)], **loc
    )
    return ast.IfExp(test, _name(value.id, loc), _call(WRITE, loc, _name(value.id, loc)), **loc)


def method_receiver(receiver: ast.expr, method: str, where: ast.AST, held: str | None) -> ast.expr:
    """The receiver of ``receiver.method(...)``, checked so that the call stays a native
    method call: ``(r if .exact_type(r) in .receivers else .method_of(r, "method"))``
    (``r`` a name, or ``held := receiver``; ``held`` None: no assignment expression
    here, ``.method_of(receiver, "method")``)."""
    loc = location(where)
    slow_args: list[ast.expr]
    if isinstance(receiver, ast.Name):
        first: ast.expr = _name(receiver.id, loc)
        again, slow_args = _name(receiver.id, loc), [_name(receiver.id, loc)]
    elif held is not None:
        first = ast.NamedExpr(_name(held, loc, _STORE), receiver, **loc)
        again, slow_args = _name(held, loc), [_name(held, loc)]
    else:
        return _call(METHOD_OF, loc, receiver, ast.Constant(method, **loc))
    receivers = RECEIVERS_UNCHANGED if method in NAMESPACE_CHANGERS else RECEIVERS
    test = ast.Compare(_call(EXACT_TYPE, loc, first), [ast.In()], [_name(receivers, loc)], **loc)
    slow = _call(METHOD_OF, loc, *slow_args, ast.Constant(method, **loc))
    return ast.IfExp(test, again, slow, **loc)


def unpacked(value: ast.expr, where: ast.AST) -> ast.expr:
    """``.unpack(value)``: the value of an unpacking assignment, its items checked."""
    return _call(UNPACK, location(where), value)


def name_checks(names: list[str], where: ast.AST, check: str = ENTER) -> list[ast.stmt]:
    """``if <any name's type is not harmless>: x = .enter(x); ...`` (or nothing)."""
    names = list(dict.fromkeys(names))
    if not names:
        return []
    loc = location(where)
    tests: list[ast.expr] = [_type_test(_name(n, loc), loc, ast.NotIn()) for n in names]
    test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests, **loc)
    body: list[ast.stmt] = [
        ast.Assign([_name(n, loc, _STORE)], _call(check, loc, _name(n, loc)), **loc) for n in names
    ]
    return [ast.If(test, body, [], **loc)]


def name_guard(names: list[str], where: ast.AST) -> ast.expr | None:
    """An always-true expression checking ``names`` (a match guard, a lambda's body):
    ``(.exact_type(x) in .harmless or [x := .enter(x)]) and ...``."""
    loc = location(where)
    parts: list[ast.expr] = []
    for name in dict.fromkeys(names):
        check = _call(ENTER, loc, _name(name, loc))
        rebind = ast.List([ast.NamedExpr(_name(name, loc, _STORE), check, **loc)], _LOAD, **loc)
        test = _type_test(_name(name, loc), loc, ast.In())
        parts.append(ast.BoolOp(ast.Or(), [test, rebind], **loc))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts, **loc)


def checked_items(names: list[str], where: ast.AST) -> ast.comprehension | None:
    """``for x in [x if .exact_type(x) in .harmless else .enter(x)]``: a comprehension
    target's names checked (CPython compiles a loop over a one-item list as an
    assignment)."""
    names = list(dict.fromkeys(names))
    if not names:
        return None
    loc = location(where)
    values: list[ast.expr] = [
        ast.IfExp(
            _type_test(_name(n, loc), loc, ast.In()),
            _name(n, loc),
            _call(ENTER, loc, _name(n, loc)),
            **loc,
        )
        for n in names
    ]
    stores: list[ast.expr] = [_name(n, loc, _STORE) for n in names]
    target = stores[0] if len(stores) == 1 else ast.Tuple(stores, _STORE, **loc)
    value = values[0] if len(values) == 1 else ast.Tuple(values, _LOAD, **loc)
    return ast.comprehension(target, ast.List([value], _LOAD, **loc), [], 0)


def detached_target(target: ast.expr, where: ast.AST) -> ast.Assign:
    """``target = .enter(.item)`` (``.unpack`` for a tuple) for a target that stores
    into attributes or items; the loop or ``with`` binds ``.item`` instead."""
    loc = location(where)
    check = UNPACK if isinstance(target, (ast.Tuple, ast.List)) else ENTER
    return ast.Assign([target], _call(check, loc, _name(ITEM, loc)), **loc)


def item_target(where: ast.AST) -> ast.Name:
    """The generated name a detached target's loop binds."""
    return _name(ITEM, location(where), _STORE)


def item_values(value: ast.expr, where: ast.AST) -> ast.List:
    """``[value]``: the one-item list a detached comprehension target loops over."""
    return ast.List([value], _LOAD, **location(where))


def target_names(target: ast.AST) -> list[str] | None:
    """The names a target binds (starred ones too); None if it stores elsewhere."""
    names: list[str] = []
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
        else:
            return None
    return names


def pattern_names(pattern: ast.pattern) -> list[str]:
    """The names a match pattern captures."""
    names: list[str] = []
    for node in ast.walk(pattern):
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.append(node.rest)
    return names


def parameters(args: ast.arguments) -> list[str]:
    """Every parameter name of a function or lambda but ``*args`` and ``**kwargs``."""
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def collected_parameters(args: ast.arguments) -> list[str]:
    """The names of ``*args`` and ``**kwargs``, whose items are parameters too."""
    return [a.arg for a in (args.vararg, args.kwarg) if a is not None]


def items_checks(names: list[str], where: ast.AST, operands: bool) -> list[ast.stmt]:
    """``args = .enter_items(args)`` for each of ``names``."""
    loc = location(where)
    flag = ast.Constant(operands, **loc)
    return [
        ast.Assign([_name(n, loc, _STORE)], _call(ENTER_ITEMS, loc, _name(n, loc), flag), **loc)
        for n in names
    ]


def items_guard(names: list[str], where: ast.AST) -> ast.expr | None:
    """An always-true expression checking the items of ``names`` (a lambda's body):
    ``[args := .enter_items(args, False)] and ...``."""
    loc = location(where)
    parts: list[ast.expr] = []
    for name in names:
        check = _call(ENTER_ITEMS, loc, _name(name, loc), ast.Constant(False, **loc))
        parts.append(
            ast.List([ast.NamedExpr(_name(name, loc, _STORE), check, **loc)], _LOAD, **loc)
        )
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts, **loc)


def is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
