"""``eval`` and ``exec`` of strings, under the same rules as the script itself.

The string is read once, as an exact ``str`` (a ``str`` subclass could say one thing
to a check and another to the compiler), checked by CPython's compiler for syntax,
then compiled by the sandbox's transformer like any script. The namespace is the
caller's (or the dict the script passes); one that has no ``__builtins__`` gets a copy
of the script's safe builtins, never the interpreter's.

The guards the compiled code calls are not looked up in that namespace: the script
holds the dict it passes, and could rebind ``.write`` in it between two statements.
The code is compiled as the body of a function whose parameters are the generated
names (for ``exec``; names bound at its top level are declared ``global``, so that they
land in the namespace as they would in CPython) or as a lambda (for ``eval``); the
guards are its arguments, out of reach of the namespace. Names the code reads from the
caller's locals (``eval("x + 1")`` in a function) are passed the same way.

Differences from CPython, documented in ``docs/guide/scripts.md``: ``exec`` inside a function binds
new names in the globals (CPython binds them in a snapshot of the locals, where they
are lost); a separate ``locals`` mapping given to ``exec`` is read, never written; a
walrus at the top level of ``eval`` binds nothing outside it; code objects are refused
(a script never holds one).

Worker side: standard library and RestrictedPython only.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Mapping
from types import CodeType
from typing import Any

from sandbox.worker.language.classes import SCRIPT_MODULE
from sandbox.worker.language.compiler import SandboxTransformer
from sandbox.worker.language.control import ForbiddenSyntax
from sandbox.worker.language.names import GUARD_NAMES
from sandbox.worker.language.toplevel import bound_at_top

_CACHE_SIZE = 256


def _source_text(source: Any, what: str) -> str:
    if isinstance(source, str):
        return str.__str__(source)  # one exact copy, used for every step below
    if isinstance(source, (bytes, bytearray)):
        return bytes(source).decode("utf-8")
    raise TypeError(f"{what}() arg 1 must be a string or bytes object in the sandbox")


def _loaded(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


class Evaluator:
    """The script's ``eval`` and ``exec``, for one runtime.

    ``register`` records each compiled string's lines (for tracebacks) and returns the
    file name to compile it under; ``builtins`` is the script's safe builtins.
    """

    def __init__(
        self,
        guards: tuple[Any, ...],
        builtins: dict[str, Any],
        register: Callable[[str], str],
        max_source: int,
    ) -> None:
        self._guards = guards
        self._builtins = builtins
        self._register = register
        self._max_source = max_source
        self._cache: dict[tuple[str, str, tuple[str, ...]], tuple[Any, tuple[str, ...]]] = {}
        #: The script's globals: ``eval``/``exec`` without ``globals`` run there when no
        #: script frame called them (library code calling back, an event loop's callback).
        self.script_globals: dict[str, Any] = {}

    # -- compiling -------------------------------------------------------------------
    def _compile(self, text: str, mode: str, outer: frozenset[str]) -> tuple[Any, tuple[str, ...]]:
        """The code of a function taking the guards, then the returned names' values."""
        if len(text.encode("utf-8", "surrogatepass")) > self._max_source:
            raise ValueError(f"{mode}() source is over the policy's source_bytes limit")
        filename = self._register(text)
        # CPython's own compiler first: the syntax errors a script expects (``return``
        # outside a function...). Compiling runs nothing.
        try:
            compile(text, filename, mode, dont_inherit=True)
            tree = ast.parse(text, filename, mode)
        except (MemoryError, RecursionError):
            # CPython 3.11's parser reports deep nesting as a MemoryError: not memory.
            raise SyntaxError(f"{mode}() source is nested too deeply to be compiled") from None
        transformer = SandboxTransformer()
        if mode == "eval":
            assert isinstance(tree, ast.Expression)
            body: Any = transformer.visit(tree.body)
        else:
            assert isinstance(tree, ast.Module)
            if any(isinstance(n, ast.ImportFrom) and n.names[0].name == "*" for n in tree.body):
                transformer.error(tree, '"*" imports are not supported in exec() code.')
            body = transformer.visit(tree).body
        if transformer.errors:
            raise ForbiddenSyntax("\n".join(transformer.errors))
        if mode == "eval":
            params = tuple(sorted((_loaded(tree) & outer) - set(GUARD_NAMES)))
            node: ast.Expression | ast.Module = ast.Expression(
                ast.Lambda(_arguments(GUARD_NAMES + params), body)
            )
        else:
            # Generated names (the match helpers') stay local to the wrapper: in the
            # namespace, the script could rebind them.
            bound = {name for name in bound_at_top(body) if "." not in name}
            params = tuple(sorted((_loaded(tree) & outer) - bound - set(GUARD_NAMES)))
            prologue: list[ast.stmt] = [ast.Global(sorted(bound))] if bound else []
            wrapper = ast.FunctionDef(
                name="<module>",
                args=_arguments(GUARD_NAMES + params),
                body=[*prologue, *body, ast.Return(ast.Constant(None))],
                decorator_list=[],
                returns=None,
                type_comment=None,
            )
            node = ast.Module([wrapper], type_ignores=[])
        ast.fix_missing_locations(node)
        code = compile(node, filename, mode, dont_inherit=True)
        if mode == "eval":
            # Tracebacks name the evaluated string's frame as CPython does.
            consts = tuple(
                c.replace(co_name="<module>", co_qualname="<module>")
                if isinstance(c, CodeType) and c.co_name == "<lambda>"
                else c
                for c in code.co_consts
            )
            code = code.replace(co_consts=consts)
        return code, params

    def _code_for(self, text: str, mode: str, outer: frozenset[str]) -> tuple[Any, tuple[str, ...]]:
        key = (text, mode, tuple(sorted(outer)))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._compile(text, mode, outer)
            if len(self._cache) < _CACHE_SIZE:
                self._cache[key] = cached
        return cached

    # -- running ---------------------------------------------------------------------
    def _namespace(self, globals_: Any, locals_: Any) -> tuple[dict[str, Any], Any]:
        if globals_ is None:
            # The script's frame that called eval/exec: the first one of its code. Never
            # another frame's globals: a library or the runtime calling ``eval`` back (a
            # callback, a ``key=``) would hand over its own module's real builtins.
            frame: Any = sys._getframe(1)
            while frame is not None and not frame.f_code.co_filename.startswith("<script"):
                frame = frame.f_back
            if frame is None:
                return self.script_globals, (None if locals_ is None else locals_)
            caller_globals = frame.f_globals
            scope = frame.f_locals if locals_ is None else locals_
            return caller_globals, (None if scope is caller_globals else scope)
        if not isinstance(globals_, dict):
            raise TypeError("globals must be a dict")
        if "__builtins__" not in globals_:
            # As CPython's builtins module does, this answers ``__name__`` for class
            # statements (their ``__module__``).
            globals_["__builtins__"] = {**self._builtins, "__name__": SCRIPT_MODULE}
        if locals_ is not None and not isinstance(locals_, Mapping):
            raise TypeError("locals must be a mapping")
        return globals_, (None if locals_ is globals_ else locals_)

    def _run(self, mode: str, source: Any, globals_: Any, locals_: Any) -> Any:
        text = _source_text(source, mode)
        namespace, scope = self._namespace(globals_, locals_)
        outer = (
            # The caller's own generated names (``.match.subject.1``) are not passed.
            frozenset(name for name in scope if type(name) is str and "." not in name)
            if scope is not None
            else frozenset()
        )
        code, params = self._code_for(text, mode, outer)
        values = [scope[name] for name in params] if scope is not None else []
        if mode == "eval":
            function = eval(code, namespace)  # a lambda: running it is the evaluation
            return function(*self._guards, *values)
        holder: dict[str, Any] = {}
        exec(code, namespace, holder)  # defines the wrapper function in ``holder``
        holder["<module>"](*self._guards, *values)
        return None

    def eval(self, source: Any, globals: Any = None, locals: Any = None, /) -> Any:
        """Evaluate an expression string under the sandbox's rules."""
        return self._run("eval", source, globals, locals)

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """Execute a string of statements under the sandbox's rules."""
        self._run("exec", source, globals, locals)


def _arguments(names: tuple[str, ...]) -> ast.arguments:
    return ast.arguments(
        posonlyargs=[ast.arg(name) for name in names],
        args=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
