"""Running scripts: result helpers, ways of ending, state, isolation, tracebacks."""

from __future__ import annotations

import pytest

from sandbox import Error, FinalResult, Observation, Sandbox, TransferToAgent


def run(sandbox: Sandbox, source: str):  # type: ignore[no-untyped-def]
    with sandbox.session() as session:
        return session.run(source)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("final_result({'a': [1, 2]})", FinalResult(value={"a": [1, 2]})),
        ("observation((1, 'x'))", Observation(value=[1, "x"])),
        ("error('bad input')", Error(message="bad input")),
        ("transfer_to_agent('researcher')", TransferToAgent(agent_name="researcher")),
    ],
)
def test_each_helper(sandbox: Sandbox, source: str, expected: object) -> None:
    execution = run(sandbox, source)
    assert execution.output == expected
    assert execution.error_code is None


def test_helper_ends_the_script_at_once(sandbox: Sandbox) -> None:
    execution = run(sandbox, "print('before')\nfinal_result(1)\nprint('after')")
    assert execution.output == FinalResult(value=1)
    assert execution.stdout == "before\n"


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    final_result(1)\nexcept Exception:\n    final_result(2)",
        "try:\n    final_result(1)\nexcept:\n    final_result(2)",
        "try:\n    final_result(1)\nexcept BaseException:\n    pass\nfinal_result(3)",
        "def f():\n    try:\n        final_result(1)\n    finally:\n        return 5\nf()\n"
        "final_result(4)",
    ],
)
def test_helpers_cannot_be_swallowed(sandbox: Sandbox, source: str) -> None:
    assert run(sandbox, source).output == FinalResult(value=1)


def test_ending_with_a_tagged_dict(sandbox: Sandbox) -> None:
    execution = run(sandbox, "x = 41\n{'type': 'final_result', 'value': x + 1}")
    assert execution.output == FinalResult(value=42)


def test_ending_with_a_malformed_tagged_dict_explains(sandbox: Sandbox) -> None:
    execution = run(sandbox, "{'type': 'final', 'value': 1}")
    assert isinstance(execution.output, Error)
    assert "final_result(value)" in execution.output.message


def test_ending_with_neither_is_an_observation_of_printed_text(sandbox: Sandbox) -> None:
    execution = run(sandbox, "for i in range(3):\n    print(i, end=' ')\n1 + 1")
    assert execution.output == Observation(value="0 1 2 ")
    assert execution.stdout == "0 1 2 "
    assert run(sandbox, "x = 1").output == Observation(value="")


def test_variables_persist_within_a_session(sandbox: Sandbox) -> None:
    with sandbox.session() as session:
        session.run(
            "import math\nclass Acc:\n    def __init__(self):\n        self.n = 0\na = Acc()"
        )
        session.run("a.n += 5\nvalues = [math.pi]")
        execution = session.run("observation({'n': a.n, 'v': round(values[0], 2)})")
    assert execution.output == Observation(value={"n": 5, "v": 3.14})


def test_sessions_are_isolated(sandbox: Sandbox) -> None:
    with sandbox.session() as first:
        first.run("secret = 'abc'\nimport json\njson.dumps = None")
        poisoned = first.run("json.loads = None")
        assert poisoned.error_code == "runtime_error"
        assert "cannot set or delete attributes" in poisoned.output.message  # type: ignore[union-attr]
        first_pid = first.pid
    with sandbox.session() as second:
        assert second.pid != first_pid
        execution = second.run("import json\nobservation([json.dumps([1]), 'secret' in dir()])")
        assert execution.error_code == "runtime_error"  # dir() does not exist
        execution = second.run(
            "import json\ntry:\n    secret\nexcept NameError:\n    observation(json.dumps([1]))"
        )
    assert execution.output == Observation(value="[1]")


def test_uncaught_exception_traceback_shows_only_script_lines(sandbox: Sandbox) -> None:
    source = (
        "def inner(x):\n    return x['missing']\n\ndef outer():\n    return inner({})\n\nouter()"
    )
    execution = run(sandbox, source)
    assert execution.error_code == "runtime_error"
    message = execution.output.message  # type: ignore[union-attr]
    assert message.startswith("Traceback (most recent call last):")
    assert 'File "<script>", line 7, in <module>' in message
    assert "line 2, in inner" in message
    assert "return x['missing']" in message
    assert message.endswith("KeyError: 'missing'")
    for leak in ("/work", "site-packages", "sandbox/", '.py"'):
        assert leak not in message


def test_guard_refusals_do_not_show_sandbox_frames(sandbox: Sandbox) -> None:
    execution = run(sandbox, "x = getattr(1, '__class__')\ny = getattr(x, '__base__')")
    assert execution.error_code == "policy_violation"
    message = execution.output.message  # type: ignore[union-attr]
    assert "AttributeError: access to attribute '__base__' is not allowed" in message
    assert "guards" not in message


@pytest.mark.parametrize(
    ("source", "code", "needle"),
    [
        ("def f(:\n  pass", "syntax_error", "SyntaxError"),
        ("x = ().__class__.__bases__", "policy_violation", "__bases__"),
        ("exec('import os')", "policy_violation", "ModuleNotFoundError"),
        ("import os", "policy_violation", "Importable modules: abc, array"),
        ("try:\n    pass\nexcept* ValueError:\n    pass", "policy_violation", "TryStar"),
        ("raise ValueError('nope')", "runtime_error", "ValueError: nope"),
    ],
)
def test_error_codes(sandbox: Sandbox, source: str, code: str, needle: str) -> None:
    execution = run(sandbox, source)
    assert execution.error_code == code
    assert needle in execution.output.message  # type: ignore[union-attr]


def test_python_models_write(sandbox: Sandbox) -> None:
    source = """
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from enum import Enum
import functools, itertools, json, re, statistics, datetime, heapq, random

class Color(Enum):
    RED = 1

@dataclass
class Item:
    name: str
    price: float
    tags: list = field(default_factory=list)

class Base:
    def __init__(self, name):
        self.name = name
    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"

class Child(Base):
    def __init__(self, name, total=0):
        super().__init__(name)
        self.total = total
    def add(self, x):
        self.total += x
        return self

counts = Counter("abracadabra")
groups = defaultdict(list)
for word in "apple avocado banana blueberry cherry".split():
    groups[word[0]].append(word)
totals = {}
for k in "aab":
    totals[k] = totals.get(k, 0) + 1
    totals[k] += 1
c = Child("x").add(2).add(3)
items = [Item("a", 2.5), Item("b", 1.0, ["x"])]
cheapest = min(items, key=lambda i: i.price)
squares = {n: n * n for n in range(5) if n % 2 == 0}
gen = (x for x in range(10))
first, *rest = sorted(zip("cba", range(3)))
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
try:
    int("x")
except ValueError as exc:
    caught = str(exc)
finally:
    done = True
with_count = 0
match c.total:
    case 5:
        matched = "five"
    case _:
        matched = "other"
final_result({
    "counts": counts.most_common(2), "groups": dict(groups), "totals": totals,
    "repr": repr(c), "total": c.total, "cheapest": cheapest.name, "squares": squares,
    "sum": sum(gen), "first": first, "rest": rest, "fib": fib(30), "caught": caught,
    "done": done, "fmt": "{:.2f}|{:>4}|{name}".format(3.14159, 7, name="n"),
    "json": json.dumps({"a": [1, 2]}), "re": re.sub(r"\\d", "#", "a1b22"),
    "mean": statistics.mean([1, 2, 3, 4]), "color": Color.RED.name,
    "date": datetime.date(2023, 11, 10).isoformat(), "heap": heapq.nsmallest(2, [5, 1, 3]),
    "isinstance": isinstance(c, Base) and isinstance(Child, type),
    "chain": list(itertools.chain([1], [2])), "matched": matched,
    "mapped": list(map(str, filter(None, [0, 1, 2]))), "any": any([0, 1]),
    "enum": list(enumerate("ab")), "rand": 0 <= random.random() < 1,
})
"""
    execution = run(sandbox, source)
    assert execution.error_code is None, execution.output
    value = execution.output.value  # type: ignore[union-attr]
    assert value["counts"] == [["a", 5], ["b", 2]]
    assert value["groups"] == {
        "a": ["apple", "avocado"],
        "b": ["banana", "blueberry"],
        "c": ["cherry"],
    }
    assert value["totals"] == {"a": 4, "b": 2}
    assert value["repr"] == "Child('x')" and value["total"] == 5
    assert value["cheapest"] == "b" and value["squares"] == {"0": 0, "2": 4, "4": 16}
    assert value["sum"] == 45 and value["first"] == ["a", 2] and value["fib"] == 832040
    assert value["caught"].startswith("invalid literal") and value["done"] is True
    assert value["fmt"] == "3.14|   7|n" and value["re"] == "a#b##"
    assert value["mean"] == 2.5 and value["color"] == "RED" and value["date"] == "2023-11-10"
    assert value["heap"] == [1, 3] and value["isinstance"] is True and value["matched"] == "five"
    assert value["mapped"] == ["1", "2"] and value["rand"] is True


def test_name_main_idiom_runs(sandbox: Sandbox) -> None:
    execution = run(
        sandbox, "def main():\n    final_result('ran')\n\nif __name__ == '__main__':\n    main()"
    )
    assert execution.output == FinalResult(value="ran")


def test_values_are_converted_to_json(sandbox: Sandbox) -> None:
    source = (
        "import datetime, decimal\nfinal_result({'s': {3, 1, 2}, 't': (1, 2), "
        "'d': datetime.date(2020, 1, 2), 'dec': decimal.Decimal('1.5'), 1: 'int key', "
        "'nan': float('nan')})"
    )
    value = run(sandbox, source).output.value  # type: ignore[union-attr]
    assert value == {
        "s": [1, 2, 3],
        "t": [1, 2],
        "d": "2020-01-02",
        "dec": 1.5,
        "1": "int key",
        "nan": "NaN",
    }


def test_unconvertible_result_explains(sandbox: Sandbox) -> None:
    execution = run(sandbox, "class Thing:\n    pass\nfinal_result({'x': [Thing()]})")
    assert execution.error_code == "runtime_error"
    assert "$['x'][0] is a Thing" in execution.output.message  # type: ignore[union-attr]


def test_random_differs_between_sessions(sandbox: Sandbox) -> None:
    draws = {
        run(sandbox, "import random\nfinal_result(random.getrandbits(64))").output.value
        for _ in range(3)
    }  # type: ignore[union-attr]
    assert len(draws) == 3


def test_even_a_short_run_reports_its_cpu_time(sandbox: Sandbox) -> None:
    with sandbox.session() as session:
        session.run("x = sum(range(1000))")
        again = session.run("x = sum(range(1000))")  # compiled already: only the run
    assert 0 < again.cpu_s < 0.5


def test_abstract_classes_but_no_metaclass(sandbox: Sandbox) -> None:
    with sandbox.session() as session:
        ex = session.run(
            "from abc import ABC, abstractmethod\n"
            "class Shape(ABC):\n    @abstractmethod\n    def area(self):\n        ...\n"
            "class Square(Shape):\n    def area(self):\n        return 4\n"
            "try:\n    Shape()\n    abstract = False\nexcept TypeError:\n    abstract = True\n"
            "final_result([Square().area(), abstract])"
        )
        assert ex.output == FinalResult(value=[4, True])
        refused = session.run("from abc import ABCMeta")
        assert refused.error_code == "runtime_error" and "ImportError" in refused.output.message  # type: ignore[union-attr]
