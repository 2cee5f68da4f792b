"""Escapes through the sandbox's own classes and through ``__init__``.

A script holds instances of the sandbox's classes (module proxies, file wrappers,
exceptions). Their constructors take arguments a script must not choose, so neither
``type(x)`` nor ``x.__init__`` may hand them out; and ``__init__`` must not re-initialise
library objects behind the attribute guard.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from sandbox import Execution, Sandbox, SandboxPolicy


def run(sandbox: Sandbox, source: str) -> Execution:
    with sandbox.session() as session:
        return session.run(source)


def failed(execution: Execution) -> bool:
    return execution.error_code in {"policy_violation", "runtime_error"}


@pytest.mark.parametrize(
    "route",
    [
        "P = type(json)\nP('x')",
        "P = json.__class__\nP('x')",
        "type(json).__init__(json)",
        "json.__init__()",
        "setattr(type(json), 'dumps', lambda *a: 'poisoned')",
        "class Q(type(json)):\n    pass\nQ()",
    ],
)
def test_module_proxies_cannot_be_built(sandbox: Sandbox, route: str) -> None:
    with sandbox.session() as session:
        execution = session.run("import json\n" + route + "\nprint('BUILT')")
        after = session.run("import json\nprint(json.dumps([1]), isinstance(json, type(json)))")
    assert failed(execution)
    assert "BUILT" not in execution.stdout
    assert after.stdout == "[1] True\n"


REINIT = {
    "bound": "fractions.Fraction.numerator.__init__(lambda self: 42)",
    "unbound": "property.__init__(fractions.Fraction.numerator, lambda self: 42)",
    "getattr": "getattr(fractions.Fraction.numerator, '__init__')(lambda self: 42)",
    "type of": "type(fractions.Fraction.numerator).__init__(fractions.Fraction.numerator, len)",
    "super": "super(property, fractions.Fraction.numerator).__init__()\n"
    "property.__init__(fractions.Fraction.numerator, len)",
    "library instance": "d = decimal.Decimal(1)\nt = typing.ClassVar\nt.__init__(len)",
}


@pytest.mark.parametrize("route", list(REINIT.values()), ids=list(REINIT))
def test_library_objects_cannot_be_reinitialised(sandbox: Sandbox, route: str) -> None:
    with sandbox.session() as session:
        execution = session.run("import fractions, decimal, typing\n" + route)
        after = session.run(
            "import fractions, typing\nprint(fractions.Fraction(3, 4).numerator, typing.ClassVar)"
        )
    assert failed(execution)
    assert after.stdout == "3 typing.ClassVar\n"


def test_initialisers_still_work(sandbox: Sandbox) -> None:
    source = """
import dataclasses, collections
class MyError(Exception):
    def __init__(self, msg):
        super().__init__('my: ' + msg)
class Old(Exception):
    def __init__(self, msg):
        Exception.__init__(self, msg)
class Counts(collections.Counter):
    def __init__(self, text):
        collections.Counter.__init__(self, text)
class Base:
    def __init__(self, x):
        self.x = x
class Child(Base):
    def __init__(self):
        super().__init__(1)
        Base.__init__(self, self.x + 1)
@dataclasses.dataclass
class P:
    a: int
p = P(1)
p.__init__(5)
try:
    [].nope
except AttributeError as e:
    same = type(e) is AttributeError
try:
    getattr(1, '__globals__')
except AttributeError as e:
    refused = type(e).__name__
print(MyError('x'), Old('y'), Counts('aab')['a'], Child().x, p.a, same, refused)
"""
    execution = run(sandbox, source)
    assert execution.error_code is None, execution.output
    assert execution.stdout == "my: x y 2 2 5 True AttributeError\n"


MOUNT_ROUTES = {
    "type()": "q = type(p)('/data/a.txt', Fake())",
    "__class__": "q = p.__class__('/data/a.txt', Fake())",
    "__init__": "p.__init__('/data/a.txt', Fake())\nq = p",
    "class __init__": "type(p).__init__(p, '/data/a.txt', Fake())\nq = p",
    "file type()": "f = open('/data/a.txt')\nq = type(f)(f, '/data/a.txt', 'r', Fake(), {})",
}


@pytest.mark.parametrize("route", list(MOUNT_ROUTES.values()), ids=list(MOUNT_ROUTES))
def test_file_wrappers_keep_their_mounts(tmp_path: Path, route: str) -> None:
    try:
        from sandbox.policy import Mount
    except ImportError:
        pytest.skip("this tree has no mounts")
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.txt").write_text("public")
    token = secrets.token_hex(16)
    secret = tmp_path / "secret.txt"
    secret.write_text(token)
    policy = SandboxPolicy.preset("default")
    policy = policy.model_copy(update={"modules": (*policy.modules, "pathlib")})
    policy = policy.with_mounts(Mount(sandbox_path="/data", host_path=str(data)))
    source = f"""
import pathlib
class Fake:
    def resolve(self, path, write=False):
        print('ESC' + 'APED')
        return ({str(secret)!r}, {{'sandbox_path': '/data', 'mode': 'rw', 'max_bytes': 1 << 30}})
    def normalize(self, path):
        return path
    def charge(self, mount, size):
        pass
p = pathlib.Path('/data/a.txt')
{route}
print(q.read() if hasattr(q, 'read') else q.read_text())
"""
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        public = session.run("import pathlib\nprint(pathlib.Path('/data/a.txt').read_text())")
        execution = session.run(source)
    assert public.stdout == "public\n"
    assert failed(execution)
    dump = execution.model_dump_json()
    assert "ESCAPED" not in dump
    assert token not in dump
