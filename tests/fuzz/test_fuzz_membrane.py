"""Fuzz the membrane: native code hands the real ``type`` to script code by every
position, in every scope, from several native producers; the script must only ever
hold the sandbox's ``type``.

Every position x scope pair is run once (``test_every_position_in_every_scope``), and
hypothesis draws producer x position x scope triples beside it. A position is a snippet
that binds ``t`` from ``SRC``, an iterator native code fills; the snippet runs inside a
scope (module, function, method, nested function, async function, class body,
``exec``); the script prints ``t is type``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import Sandbox, SandboxPolicy, Session

#: Native iterators that yield the real ``type`` once.
PRODUCERS = {
    "map": "map(typing.get_origin, [typing.Type])",
    "filter": "filter(None, map(typing.get_origin, [typing.Type]))",
    "tuple": "iter(tuple(map(typing.get_origin, [typing.Type])))",
    "chain": "itertools.chain(map(typing.get_origin, [typing.Type]))",
    "reversed": "reversed(list(map(typing.get_origin, [typing.Type])))",
    "dict keys": "iter(dict.fromkeys(map(typing.get_origin, [typing.Type])))",
}

#: Snippets that bind ``t`` from ``SRC`` (``SRC`` is a fresh iterator each time).
POSITIONS = {
    "for": "for t in SRC:\n    pass",
    "list comprehension": "t = [x for x in SRC][0]",
    "set comprehension": "t = {x for x in SRC}.pop()",
    "dict comprehension": "t = {k: v for k, v in zip('k', SRC)}['k']",
    "generator expression": "t = next(x for x in SRC)",
    "nested comprehension": "t = [y for x in [SRC] for y in x][0]",
    "unpacking": "(t,) = SRC",
    "starred unpacking": "*u, = SRC\nt = u[0]",
    "call result": "t = next(SRC)",
    "walrus": "if (t := next(SRC)):\n    pass",
    "subscript": "t = list(SRC)[0]",
    "parameter": "def f(x):\n    return [x]\nt = list(map(f, SRC))[0][0]",
    "lambda parameter": "t = list(map(lambda x: [x], SRC))[0][0]",
    "varargs": "def f(*a):\n    return a\nt = f(*SRC)[0]",
    "kwargs": "def f(**kw):\n    return kw\nt = f(**dict(zip(['a'], SRC)))['a']",
    "method parameter": (
        "class K:\n    def take(self, x):\n        return [x]\nt = list(map(K().take, SRC))[0][0]"
    ),
    "with target": (
        "class CM:\n"
        "    __enter__ = staticmethod(functools.partial(next, SRC))\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n"
        "with CM() as t:\n"
        "    pass"
    ),
    "match capture": "match list(SRC):\n    case [t]:\n        pass",
    "match mapping": "match dict(zip('k', SRC)):\n    case {'k': t}:\n        pass",
    "sent value": (
        "def g():\n"
        "    got = yield\n"
        "    yield [got]\n"
        "gen = g()\n"
        "next(gen)\n"
        "t = list(map(gen.send, SRC))[0][0]"
    ),
    "decorator": "@functools.partial(next, SRC)\ndef t():\n    pass",
    "sort key": "seen = []\nsorted([1], key=lambda x, s=seen: s.append(next(SRC)))\nt = seen[0]",
    "eval": "t = eval('next(it)', {'it': SRC})",
    "attribute": "t = functools.partial(*SRC).func",
    "namespace attribute": "t = types.SimpleNamespace(**dict(zip(['a'], SRC))).a",
    "method callee": "holder = functools.partial(*SRC)\nt = [holder.func][0]",
    "exec": "ns = {'it': SRC}\nexec('for t in it:\\n    pass', ns)\nt = ns['t']",
}

#: Scopes a snippet runs in; ``{body}`` is the snippet, indented to fit.
SCOPES = {
    "module": "{body0}",
    "function": "def run():\n{body}\n    return t\nt = run()",
    "method": "class R:\n    def run(self):\n{body2}\n        return t\nt = R().run()",
    "nested function": (
        "def outer():\n    def run():\n{body2}\n        return t\n    return run()\nt = outer()"
    ),
    "async function": "async def run():\n{body}\n    return t\nt = asyncio.run(run())",
    "class body": "class R:\n{body}\nt = R.t",
}

PRELUDE = "import asyncio, functools, itertools, types, typing\n"


def script(producer: str, position: str, scope: str) -> str:
    # ``SRC`` is the producer expression itself, so each use makes a fresh iterator.
    body = POSITIONS[position].replace("SRC", f"({PRODUCERS[producer]})")
    source = SCOPES[scope].format(
        body0=body, body=textwrap.indent(body, "    "), body2=textwrap.indent(body, "        ")
    )
    return PRELUDE + source + "\nprint(t is type, end='')"


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    policy = SandboxPolicy.preset("default").with_layers(os=False)
    with Sandbox(policy, spares=0) as box, box.session() as opened:
        yield opened


def check(session: Session, producer: str, position: str, scope: str) -> None:
    source = script(producer, position, scope)
    execution = session.run(source)
    assert execution.error_code is None, (source, execution.output)
    assert execution.stdout == "True", f"{position} / {scope} / {producer}: the real type\n{source}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("scope", sorted(SCOPES))
def test_every_position_in_every_scope(session: Session, scope: str) -> None:
    for position in POSITIONS:
        check(session, "map", position, scope)


@pytest.mark.timeout(300)
@settings(max_examples=60, deadline=None)
@given(
    producer=st.sampled_from(sorted(PRODUCERS)),
    position=st.sampled_from(sorted(POSITIONS)),
    scope=st.sampled_from(sorted(SCOPES)),
)
def test_any_producer_position_and_scope(
    session: Session, producer: str, position: str, scope: str
) -> None:
    check(session, producer, position, scope)
