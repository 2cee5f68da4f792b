"""The oracle: does binding a name through a form reach a reserved or generated name?

A binding of a reserved name passes when the compiler refuses the script, or when

1. the compiled code binds that name (as the interpreter will spell it after private-name
   mangling) no more often than the baseline script, which binds ``fz_plain`` instead —
   so the only bindings of it are the compiler's own; and
2. the script, run in a real session, has exactly the baseline's outcome: the probe's
   guard refusals, the class-pattern witness, the end through ``final_result``.

Ordinary names (``fz_plain``, ``_fz_private``, ``final_result``) must compile and meet 2;
so must every name that compiles.
"""

from __future__ import annotations

import dis
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from types import CodeType
from typing import Any

from sandbox.worker.language.compiler import CompileFailure, compile_script
from tests.fuzz.binding_forms import Form
from tests.fuzz.binding_names import generated_names, mangle, must_compile, protected
from tests.fuzz.binding_scripts import PLAIN, Place, Scope, script

_STORES = frozenset(
    "STORE_NAME STORE_GLOBAL STORE_FAST STORE_DEREF "
    "DELETE_NAME DELETE_GLOBAL DELETE_FAST DELETE_DEREF".split()
)


def _code_objects(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _code_objects(const)


@cache  # (the baselines' code is asked for again and again; disassembling is slow)
def bindings(code: CodeType) -> Counter[tuple[str, str]]:
    """``(scope, name)`` for every name the code binds or unbinds: stores, deletes,
    parameters, and the keys a class body writes into ``__annotations__`` (``x: int``,
    the fields of a dataclass). Scopes are code objects' qualified names."""
    found: Counter[tuple[str, str]] = Counter()
    for co in _code_objects(code):
        scope = co.co_qualname
        params = co.co_argcount + co.co_kwonlyargcount
        params += bool(co.co_flags & 0x04) + bool(co.co_flags & 0x08)  # *args, **kw
        found.update((scope, name) for name in co.co_varnames[:params])
        previous: list[dis.Instruction] = []
        for instr in dis.get_instructions(co):
            if instr.opname in _STORES:
                found[scope, instr.argval] += 1
            elif instr.opname == "STORE_SUBSCR" and len(previous) >= 2:
                key, target = previous[-1], previous[-2]
                if (
                    key.opname == "LOAD_CONST"
                    and isinstance(key.argval, str)
                    and target.opname == "LOAD_NAME"
                    and target.argval == "__annotations__"
                ):
                    found[scope, key.argval] += 1
            previous = [*previous[-1:], instr]
    return found


@dataclass(frozen=True)
class Outcome:
    """What a run showed: compared with the baseline's, whole."""

    error_code: str | None
    stdout: str
    output: str


Runner = Callable[[str], Outcome]


@dataclass(frozen=True)
class Case:
    form: Form
    place: Place
    scope: Scope
    name: str

    @property
    def source(self) -> str:
        return script(self.form, self.place, self.scope, self.name)

    @property
    def baseline(self) -> str:
        return script(self.form, self.place, self.scope, PLAIN)

    def __str__(self) -> str:
        return f"{self.form.name} / {self.place.name} / {self.scope.name} / {self.name}"


@cache
def compiled(source: str) -> CodeType | CompileFailure:
    return compile_script(source, "<fuzz>")


def learned_names(case: Case) -> list[str]:
    """The compiler's own names in the baseline, and how a script spells each."""
    code = compiled(case.baseline)
    if isinstance(code, CompileFailure):
        return []
    found = []
    for name in sorted({name for _, name in generated_names(case.baseline, set(bindings(code)))}):
        found.append(name)
        for cls in case.scope.classes:
            prefix = f"_{cls.lstrip('_')}__"
            if name.startswith(prefix):
                found.append("__" + name[len(prefix) :])
    return found


def check_static(case: Case) -> CodeType | None:
    """Compile; fail on a syntax error, a refused ordinary name, or an extra binding of a
    protected name. Returns the code when the script compiled (it must then be run)."""
    code = compiled(case.source)
    if isinstance(code, CompileFailure):
        assert code.kind == "policy", f"{case}: the generator wrote invalid Python\n{code.message}"
        assert not must_compile(case.name, case.form), f"{case}: an ordinary name was refused"
        return None
    if case.form.role in ("name", "import"):
        base = compiled(case.baseline)
        assert not isinstance(base, CompileFailure), f"{case}: the baseline does not compile"
        mine, theirs = bindings(code), bindings(base)
        generated = generated_names(case.baseline, set(theirs))
        spelled = {case.name, mangle(case.name, case.scope.classes)}
        for key, count in mine.items():
            if key[1] in spelled and protected(*key, generated):
                assert count <= theirs[key], (
                    f"{case}: the script binds {key[1]!r} in {key[0]} ({count} times, "
                    f"the baseline {theirs[key]})"
                )
    return code


def check_run(case: Case, run: Runner, baseline: Outcome) -> None:
    """The script, compiled, behaves exactly as the baseline."""
    assert baseline.error_code is None and "FZ-END" in baseline.output, (
        f"{case}: the baseline did not reach its end: {baseline}"
    )
    got = run(case.source)
    assert got == baseline, f"{case}: the binding changed the outcome\n{got}\nbaseline: {baseline}"


def outcome(execution: Any) -> Outcome:
    return Outcome(
        None if execution.error_code is None else str(execution.error_code.value),
        execution.stdout,
        repr(execution.output),
    )
