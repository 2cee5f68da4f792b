"""The data model of the script's own classes: special methods, slots, descriptors,
class hooks, and the library hooks (``copy``) that call them."""

from __future__ import annotations

import textwrap

import pytest

from sandbox import Sandbox

pytestmark = pytest.mark.timeout(120)


def run(sandbox: Sandbox, source: str):  # type: ignore[no-untyped-def]
    with sandbox.session() as session:
        return session.run(textwrap.dedent(source))


def test_special_methods_of_script_classes(sandbox: Sandbox) -> None:
    source = """
    import copy

    class V:
        __slots__ = ("x", "_y")
        __doc__ = "vector"
        def __init__(self, x): self.x = x; self._y = 0
        def __iadd__(self, o): self.x += o; return self
        def __itruediv__(self, o): self.x /= o; return self
        def __ior__(self, o): self.x |= o; return self
        def __rand__(self, o): return ("rand", o)
        def __radd__(self, o): return V(self.x + o)
        def __copy__(self): return V(self.x)
        def __deepcopy__(self, memo): return V(copy.deepcopy(self.x, memo))
        def __format__(self, spec): return f"V<{self.x:{spec}}>"
        def __hash__(self): return hash(self.x)
        def __bool__(self): return bool(self.x)

    v = V(3); v += 1; v /= 2
    print(v.x, 5 & v, (1 + v).x, f"{v:.1f}", bool(V(0)), hash(v) == hash(2.0))
    print(copy.copy(v).x, copy.deepcopy([v, v])[1].x, V.__doc__)
    w = V(4); w |= 1; print(w.x)
    """
    execution = run(sandbox, source)
    assert execution.stdout == "2.0 ('rand', 5) 3.0 V<2.0> False True\n2.0 2.0 vector\n5\n"


def test_class_hooks_and_descriptors(sandbox: Sandbox) -> None:
    source = """
    class G:
        def __getattr__(self, name): return name.upper()
    class P:
        def __new__(cls, *a):
            o = super().__new__(cls); o.made = True; return o
        def __init__(self, a): self.a = a
    class D:
        def __set_name__(self, owner, name): self.name = name
        def __get__(self, obj, t=None): return 42 if obj is not None else self
        def __set__(self, obj, v): print("set", self.name, v)
    class H:
        d = D()
    class Base:
        subs = []
        def __init_subclass__(cls, tag=None, **kw):
            super().__init_subclass__(**kw); Base.subs.append((cls.__name__, tag))
    class C1(Base, tag="x"): pass
    class Box:
        def __class_getitem__(cls, item): return f"Box[{item.__name__}]"
    class M(dict):
        def __missing__(self, k): return k * 2
    def helper(self, x): self.x = x
    class Q:
        __init__ = helper
        __hash__ = None
    class N(int):
        def __new__(cls, v): return super().__new__(cls, v * 2)
    h = H(); h.d = 1
    print(G().hello, G()._private, P(1).made, h.d, Base.subs, Box[int], M()[3], Q(5).x, N(2))
    """
    execution = run(sandbox, source)
    assert execution.stdout == "set d 1\nHELLO _PRIVATE True 42 [('C1', 'x')] Box[int] 6 5 4\n"


def test_copy_drives_getstate_and_setstate_on_the_scripts_objects(sandbox: Sandbox) -> None:
    source = """
    import copy
    class S:
        def __getstate__(self): return {"a": 1}
        def __setstate__(self, st): self.st = st
    print(copy.deepcopy(S()).st, copy.copy(S()).st)
    """
    assert run(sandbox, source).stdout == "{'a': 1} {'a': 1}\n"


def test_deepcopy_memo_is_opaque(sandbox: Sandbox) -> None:
    source = """
    import copy, json
    class Spy:
        def __deepcopy__(self, memo):
            print(memo)
            for attempt in (lambda: memo.values(), lambda: memo._memo, lambda: memo[1]):
                try:
                    attempt()
                    print("GOT")
                except (AttributeError, TypeError) as exc:
                    print(type(exc).__name__)
            return Spy()
    copy.deepcopy([json.JSONEncoder(), Spy()])
    try:
        copy.deepcopy(1, {})
    except TypeError as exc:
        print("refused", exc)
    """
    execution = run(sandbox, source)
    assert execution.stdout == (
        "<copy memo>\nAttributeError\nAttributeError\nTypeError\n"
        "refused deepcopy() accepts only the memo its __deepcopy__ received\n"
    )


@pytest.mark.parametrize(
    "slots", ["('__getattribute__',)", "'__class__'", "('__reduce_ex__', 'x')"]
)
def test_slots_named_like_special_methods_are_refused(sandbox: Sandbox, slots: str) -> None:
    source = f"class F:\n    __slots__ = {slots}\nprint('CREATED')"
    execution = run(sandbox, source)
    assert execution.error_code == "policy_violation"
    assert "CREATED" not in execution.stdout


def test_dict_and_weakref_slots_are_fine(sandbox: Sandbox) -> None:
    source = (
        "class F:\n    __slots__ = ('__dict__', '__weakref__', 'a', '_b')\n"
        "f = F()\nf.z = 1\nprint(f.z)"
    )
    assert run(sandbox, source).stdout == "1\n"


@pytest.mark.parametrize(
    "expr",
    [
        "typing.Generic.__init_subclass__()",
        "getattr(json.JSONEncoder, '__init_subclass__')()",
        "json.JSONEncoder.__new__(json.JSONEncoder)",
        "object.__new__(type(json.dumps))",
        "int.__new__(bool, 1)",
    ],
)
def test_hooks_on_library_classes_are_refused(sandbox: Sandbox, expr: str) -> None:
    execution = run(sandbox, f"import json, typing\nprint('GOT', {expr})")
    assert execution.error_code == "policy_violation"
    assert "GOT" not in execution.stdout


def test_getattr_cannot_hand_deepcopy_a_copier(sandbox: Sandbox) -> None:
    # deepcopy asks the instance for ``__deepcopy__``; a ``__getattr__`` would answer
    # and receive copy's real memo.
    source = """
    import copy
    class A:
        def __init__(self): self.x = [1]
        def __getattr__(self, name):
            if name == "__deepcopy__":
                return lambda memo: print("GOT", type(memo).__name__, len(memo))
            raise AttributeError(name)
    b = copy.deepcopy(A())
    print(type(b).__name__, b.x)
    """
    execution = run(sandbox, source)
    assert execution.stdout == "A [1]\n", execution.output


def test_slots_from_an_iterator_are_checked_too(sandbox: Sandbox) -> None:
    source = "class F:\n    __slots__ = iter(['__getattribute__'])\nprint('CREATED')"
    execution = run(sandbox, source)
    assert execution.error_code == "policy_violation"
    assert "CREATED" not in execution.stdout
