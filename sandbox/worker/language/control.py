"""The sandbox's own exceptions: control flow that scripts cannot swallow, and refusals.

Worker side: standard library only.
"""

from __future__ import annotations

import weakref

from sandbox.protocol import Code, ErrorCodeName


class ControlFlow(BaseException):
    """Base of the exceptions the sandbox uses to stop a script; scripts cannot catch them."""


class ScriptExit(ControlFlow):
    """A result helper was called: the script ends with the recorded output."""


class LimitExceeded(ControlFlow):
    """A limit was hit inside the worker (CPU, output, tool calls, result size).

    A script can get hold of this class (``__exit__`` receives it) and raise its own
    instances, or keep a genuine one and raise it again in a later run: only one made
    by :func:`issue_limit` during the current run (it carries that run's secret)
    reports its code and message to the host; any other reports itself as a policy
    violation. Not decided by who calls the class: a library callable the sandbox's own
    code calls on a script's behalf (``print(file=...)`` calling ``file.write``, a
    ``defaultdict``'s factory) would create one from the sandbox's own frame.
    """

    def __init__(self, code: ErrorCodeName, message: str) -> None:
        super().__init__(message)

    def _issued(self) -> tuple[ErrorCodeName, str]:
        issued = _issued_limits.get(self)
        if issued is None or issued[2] is not _run_secret:
            return _FORGED_LIMIT
        return issued[0], issued[1]

    @property
    def code(self) -> ErrorCodeName:
        return self._issued()[0]

    @property
    def message(self) -> str:
        return self._issued()[1]


def begin_run() -> None:
    """A new run: the limits issued before it are no longer genuine."""
    global _run_secret
    _run_secret = object()


def issue_limit(code: ErrorCodeName, message: str) -> LimitExceeded:
    """A genuine limit of the current run: the worker's runtime makes every one here
    (never in reach of a script: no script is given this module or a function of it)."""
    limit = LimitExceeded(code, message)
    _issued_limits[limit] = (code, message, _run_secret)
    return limit


_FORGED_LIMIT: tuple[ErrorCodeName, str] = (
    Code.POLICY_VIOLATION,
    "the script raised the sandbox's own limit exception; limits are reported by the sandbox",
)
_issued_limits: weakref.WeakKeyDictionary[LimitExceeded, tuple[ErrorCodeName, str, object]] = (
    weakref.WeakKeyDictionary()
)
#: The current run's secret: an object no script can reach.
_run_secret = object()


class ToolError(Exception):
    """A host tool failed; the message says how."""


class PolicyRefusal(Exception):
    """Mixin marking an exception raised because the policy refused something."""


class RefusedInSandbox(RuntimeError):
    """A library feature the sandbox refuses (it evaluates strings or unpickles)."""


class ForbiddenAttribute(AttributeError, PolicyRefusal):
    """An attribute the sandbox does not give out."""


class ForbiddenImport(ImportError, PolicyRefusal):
    """A module the policy does not allow."""


class ForbiddenModule(ModuleNotFoundError, PolicyRefusal):
    """A module that is not in the policy (or does not exist)."""


class ForbiddenSyntax(SyntaxError, PolicyRefusal):
    """Code given to ``eval``/``exec`` that the sandbox's compiler refuses."""


class ForbiddenOperation(TypeError, PolicyRefusal):
    """Something the sandbox does not allow on these objects (a base class, a class
    keyword, a decorator applied to a library object)."""


# Scripts see (and catch) them as the builtin exceptions they extend.
ForbiddenAttribute.__name__ = ForbiddenAttribute.__qualname__ = "AttributeError"
ForbiddenOperation.__name__ = ForbiddenOperation.__qualname__ = "TypeError"
ForbiddenImport.__name__ = ForbiddenImport.__qualname__ = "ImportError"
ForbiddenModule.__name__ = ForbiddenModule.__qualname__ = "ModuleNotFoundError"
ForbiddenSyntax.__name__ = ForbiddenSyntax.__qualname__ = "SyntaxError"
