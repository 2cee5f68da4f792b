"""Special names reach a script's objects through class bodies only (``dunders.py``).

Every route of ``dunders.ROUTES`` is tried for real with the OS layer off: each script
tries to make ``__array_interface__`` (numpy reads an address from it) or
``__reduce_ex__`` (copy calls it) an attribute, and prints ``ESCAPED`` if it became one.
numpy's data protocols are tried through every route a script could answer them by.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy, Session
from sandbox.worker.language import dunders
from sandbox.worker.language.classes import build_class, is_pure_script_class, owns_private
from sandbox.worker.language.compiler import compile_script

#: One attempt per route (``dunders.ROUTES``); each must end in a refusal.
ROUTE_SCRIPTS = {
    "class body": "class C:\n    __array_interface__ = {}\n",
    "attribute store": "class C:\n    pass\nsetattr(C, '__array_interface__', {})\n",
    "types.SimpleNamespace": (
        "import types\nns = types.SimpleNamespace(**{'__array_interface__': {}})\n"
    ),
    "typing.TypedDict": "import typing\nT = typing.TypedDict('T', {'__array_interface__': int})\n",
    "typing.NamedTuple": "import typing\nN = typing.NamedTuple('N', [('__reduce_ex__', int)])\n",
    "collections.namedtuple": "import collections\nN = collections.namedtuple('N', ['__x__'])\n",
    # (with TypedDict closed too, a dunder field reaches dataclass() only from a
    # library class's annotations: see test_dataclass_fields_are_ordinary_names)
    "dataclass fields": (
        "import dataclasses, typing\n"
        "T = typing.TypedDict('T', {'__reduce_ex__': int})\n"
        "@dataclasses.dataclass\nclass D(T):\n    pass\n"
    ),
    "enum functional API": "import enum\nE = enum.Enum('E', {'__reduce_ex__': 1})\n",
    # (see also test_update_wrapper_copies_ordinary_names_only)
    "functools.update_wrapper": (
        "import functools, types\n"
        "class W:\n    pass\n"
        "functools.update_wrapper(W, types.SimpleNamespace(**{'__reduce_ex__': 1}))\n"
    ),
    "copy state": (
        "import copy\n"
        "class C:\n"
        "    def __getstate__(self):\n"
        "        return {'__array_interface__': {}}\n"
        "copy.copy(C())\n"
    ),
    "sympy.Function": "import sympy\nF = sympy.Function('F', **{'__reduce_ex__': 1})\n",
    "type with three arguments": "C = type('C', (), {'__array_interface__': {}})\n",
}


def test_every_route_is_tried() -> None:
    assert set(ROUTE_SCRIPTS) == set(dunders.ROUTES)


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    policy = SandboxPolicy.preset("data").with_layers(os=False)
    with Sandbox(policy, spares=0) as box, box.session() as opened:
        yield opened


@pytest.mark.timeout(60)
@pytest.mark.parametrize("route", sorted(ROUTE_SCRIPTS))
def test_no_route_makes_a_special_name_an_attribute(session: Session, route: str) -> None:
    execution = session.run(ROUTE_SCRIPTS[route])
    assert execution.error_code in ("policy_violation", "runtime_error"), (route, execution)


def test_sympy_function_bases_are_sympys_own(session: Session) -> None:
    execution = session.run("import sympy, json\nsympy.Function('F', bases=(json.JSONEncoder,))")
    assert execution.error_code == "runtime_error", execution.output
    assert "sympy function classes only" in str(execution.output)


PROTOCOLS = ("__array_interface__", "__array_struct__", "__array__", "__dlpack__", "__buffer__")

#: Each way a script's object could answer a protocol name (formatted with the name).
ANSWERS = {
    "class attribute": "class P:\n    {name} = VALUE\np = P()\n",
    "__getattr__": ("class P:\n    def __getattr__(self, name):\n        return VALUE\np = P()\n"),
    "namespace": "import types\np = types.SimpleNamespace(**{{'{name}': VALUE}})\n",
    "copied state": (
        "import copy\n"
        "class Q:\n    def __getstate__(self):\n        return {{'{name}': VALUE}}\n"
        "p = copy.copy(Q())\n"
    ),
}

PROTOCOL_PRELUDE = (
    "import numpy as np\n"
    "x = 12345678901234567890\n"
    "VALUE = {'shape': (16,), 'typestr': '|u1', 'data': (id(x), True), 'version': 3}\n"
)
PROTOCOL_CHECK = (
    "a = np.asarray(p)\n"
    "if a.dtype == np.uint8 and int.from_bytes(bytes(a[8:16]), 'little') == id(int):\n"
    "    print('ESC' + 'APED')\n"
)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", PROTOCOLS)
@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_numpy_protocols_hear_no_script_answer(session: Session, name: str, answer: str) -> None:
    source = PROTOCOL_PRELUDE + ANSWERS[answer].format(name=name) + PROTOCOL_CHECK
    execution = session.run(source)
    assert "ESCAPED" not in execution.stdout, (name, answer)
    if execution.error_code is None:
        # numpy made an object array holding the script's object: nothing was read.
        assert execution.stdout == ""


def test_a_scripts_getattr_still_answers_ordinary_names(session: Session) -> None:
    execution = session.run(
        "class P:\n"
        "    def __getattr__(self, name):\n"
        "        return name.upper()\n"
        "p = P()\n"
        "print(p.color, hasattr(p, '__len__'), getattr(p, 'size'))"
    )
    assert execution.stdout == "COLOR False SIZE\n", execution.output


def test_ordinary_names_still_travel(session: Session) -> None:
    execution = session.run(
        "import types, typing, dataclasses, functools, copy\n"
        "ns = types.SimpleNamespace(a=1, b=2)\n"
        "T = typing.TypedDict('T', {'a': int})\n"
        "class K(T):\n    b: str\n"
        "@dataclasses.dataclass\nclass D:\n    x: int\n    _y: int = 0\n"
        "def f():\n    pass\n"
        "f.tag = 'x'\n"
        "@functools.wraps(f)\ndef g():\n    pass\n"
        "class S:\n"
        "    def __init__(self):\n        self.v = 1\n"
        "    def __getstate__(self):\n        return {'v': 2}\n"
        "print(ns.a, ns.b, K(a=1, b='2'), D(3), g.tag, copy.copy(S()).v)"
    )
    assert execution.stdout == "1 2 {'a': 1, 'b': '2'} D(x=3, _y=0) x 2\n", execution.output


# -- the checks themselves, where no script can reach them ---------------------------


def _script_function() -> object:
    code = compile_script("def f():\n    pass\n", "<script>")
    namespace: dict[str, object] = {}
    exec(code, namespace)  # type: ignore[arg-type]
    return namespace["f"]


def test_dataclass_fields_are_ordinary_names() -> None:
    from sandbox.worker.language.stdlib_safe import REPLACED

    cls = type("D", (), {"__module__": "__main__", "__annotations__": {"__reduce_ex__": int}})
    with pytest.raises(TypeError, match="special name '__reduce_ex__'"):
        REPLACED["dataclasses"]["dataclass"](cls)


def test_update_wrapper_copies_ordinary_names_only() -> None:
    from sandbox.worker.language.stdlib_safe import REPLACED

    class Source:
        pass

    source = Source()
    vars(source).update({"__reduce_ex__": 1, "tag": "x"})
    wrapper = _script_function()
    REPLACED["functools"]["update_wrapper"](wrapper, source)
    assert wrapper.tag == "x"  # type: ignore[attr-defined]
    assert "__reduce_ex__" not in vars(wrapper)


# -- the private-member cache follows a changed MRO ---------------------------------


class LibraryBase:
    """A class of a library: its private members are never a script's."""

    def _hidden(self) -> str:
        return "library"


def test_a_changed_bases_is_decided_afresh() -> None:
    code = compile_script("def body():\n    pass\n", "<script>")
    assert not isinstance(code, str)
    namespace: dict[str, object] = {}
    exec(code, namespace)
    body = namespace["body"]
    base = build_class(body, "Base")  # type: ignore[arg-type]
    cls = build_class(body, "Plain", base)  # type: ignore[arg-type]
    instance = cls()
    assert is_pure_script_class(cls) and owns_private(instance, "_hidden")
    cls.__bases__ = (LibraryBase,)
    assert not is_pure_script_class(cls)
    assert not owns_private(instance, "_hidden")
