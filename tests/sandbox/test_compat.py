# ruff: noqa: E501  (a table of one-line scripts)
"""Ordinary Python that scripts write: the standard library, builtins, strptime, star
imports, module versions and the operator methods of builtin types."""

from __future__ import annotations

import pytest

from sandbox import Sandbox
from sandbox.worker.language.modules import build_proxies

pytestmark = pytest.mark.timeout(120)


def run(sandbox: Sandbox, source: str):  # type: ignore[no-untyped-def]
    with sandbox.session() as session:
        return session.run(source)


MODULE_USES = {
    "array": "import array\nprint(array.array('i', [1, 2]).tolist())",
    "hashlib": "import hashlib\nprint(hashlib.sha256(b'x').hexdigest()[:8])",
    "base64": "import base64\nprint(base64.b64decode(base64.b64encode(b'hi')))",
    "binascii": "import binascii\nprint(binascii.hexlify(b'\\x01'))",
    "uuid": "import uuid\nprint(uuid.uuid4().version, uuid.uuid5(uuid.NAMESPACE_DNS, 'a').version)",
    "csv": "import csv, io\nprint(list(csv.DictReader(io.StringIO('a,b\\n1,2\\n'))))",
    "io": "import io\nb = io.BytesIO()\nb.write(b'ab')\nprint(b.getvalue(), io.StringIO('x').read())",
    "calendar": "import calendar\nprint(calendar.isleap(2024), calendar.monthrange(2024, 2))",
    "zoneinfo": "import zoneinfo\nprint(zoneinfo.ZoneInfo('UTC'))",
    "difflib": "import difflib\nprint(difflib.get_close_matches('appel', ['apple', 'ape']))",
    "pprint": "import pprint\nprint(pprint.pformat({'a': [1, 2]}))",
    "secrets": "import secrets\nprint(len(secrets.token_hex(4)))",
    "struct": "import struct\nprint(struct.unpack('<I', struct.pack('<I', 7)))",
    "zlib": "import zlib\nprint(zlib.decompress(zlib.compress(b'aaa')))",
    "contextlib": "import contextlib\nwith contextlib.suppress(KeyError):\n    {}['x']\nprint('ok')",
    "types": "import types\nns = types.SimpleNamespace(a=1)\nns.b = 2\nprint(ns, isinstance(len, types.BuiltinFunctionType))",
    "html": "import html\nprint(html.escape('<a>'), html.unescape('&lt;'))",
    "urllib.parse": "from urllib.parse import urlparse, quote\nprint(urlparse('http://h/p').path, quote('a b'))",
    "urllib": "import urllib.parse\nprint(urllib.parse.unquote('%41'))",
    "numbers": "import numbers\nprint(isinstance(1.5, numbers.Real))",
    "queue": "import queue\nq = queue.PriorityQueue()\nq.put(2)\nq.put(1)\nprint(q.get())",
    "stat": "import stat\nprint(stat.S_ISDIR(0o040755), stat.filemode(0o100644))",
    "graphlib": "import graphlib\nprint(list(graphlib.TopologicalSorter({'a': {'b'}}).static_order()))",
    "shlex": "import shlex\nprint(shlex.split(\"a 'b c'\"), shlex.quote('a b'))",
    "fnmatch": "import fnmatch\nprint(fnmatch.fnmatch('x.py', '*.py'))",
    "sys": "import sys\nprint(sys.maxsize > 0, sys.argv, sys.version_info >= (3,), sys.byteorder)",
}


@pytest.mark.parametrize("source", list(MODULE_USES.values()), ids=list(MODULE_USES))
def test_default_modules_work(sandbox: Sandbox, source: str) -> None:
    execution = run(sandbox, source)
    assert execution.error_code is None, execution.output
    assert execution.stdout


def test_sys_has_exactly_the_listed_members() -> None:
    proxy = build_proxies(["sys"])["sys"]
    members = {key for key in type(proxy).__dict__ if not key.startswith("_")}
    assert members == {
        "maxsize",
        "float_info",
        "int_info",
        "version_info",
        "version",
        "byteorder",
        "platform",
        "argv",
        "getrecursionlimit",
        "setrecursionlimit",
        "stdout",
        "stderr",
    }


@pytest.mark.parametrize(
    "expr",
    [
        "sys.modules",
        "sys.settrace",
        "sys.setprofile",
        "sys.meta_path",
        "sys.exit",
        "sys.stdout.fileno()",
        "sys.stdout.buffer",
        "sys.stdout._name",
        "getattr(sys, '_getframe')",
        "type(sys.stdout)('stdout')",
    ],
)
def test_sys_hides_the_interpreter(sandbox: Sandbox, expr: str) -> None:
    execution = run(sandbox, f"import sys\nprint('GOT', {expr})")
    assert execution.error_code in ("runtime_error", "policy_violation")
    assert "GOT" not in execution.stdout


def test_setrecursionlimit_is_capped_by_the_policy(sandbox: Sandbox) -> None:
    depth = sandbox.policy.limits.recursion_depth
    source = (
        "import sys\nsys.setrecursionlimit(10**6)\nprint(sys.getrecursionlimit())\n"
        "def f(n):\n    return f(n + 1)\nf(0)"
    )
    execution = run(sandbox, source)
    assert execution.stdout == f"{depth}\n"
    assert "RecursionError" in str(execution.output)
    lowered = run(sandbox, "import sys\nsys.setrecursionlimit(50)\nprint(sys.getrecursionlimit())")
    assert lowered.stdout == "50\n"


def test_streams_write_to_the_captured_output(sandbox: Sandbox) -> None:
    source = (
        "import sys, pprint, calendar\nsys.stdout.write('a\\n')\nprint('b', file=sys.stderr)\n"
        "sys.stderr.write('c\\n')\npprint.pprint([1])\nprint(calendar.TextCalendar().formatweekheader(2))"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "a\nb\nc\n[1]\nMo Tu We Th Fr Sa Su\n"


def test_library_printing_goes_to_the_output(sandbox: Sandbox) -> None:
    execution = run(sandbox, "import calendar\ncalendar.prmonth(2024, 2)")
    assert "February 2024" in execution.stdout


def test_redirect_stdout_and_print_to_a_file_object(sandbox: Sandbox) -> None:
    source = (
        "import contextlib, io\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
        "    print('inside')\nprint('after', repr(buf.getvalue()))\nout = io.StringIO()\n"
        "print('x', file=out)\nprint(out.getvalue().strip())"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "after 'inside\\n'\nx\n"


def test_strptime_uses_the_real_import(sandbox: Sandbox) -> None:
    source = (
        "from datetime import datetime\nimport time\n"
        "print(datetime.strptime('2024-01-02', '%Y-%m-%d').day, time.strptime('2024', '%Y').tm_year)"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "2 2024\n", execution.output


def test_builtins_scripts_use(sandbox: Sandbox) -> None:
    source = (
        "class A(object):\n    pass\nx: object = A()\nsentinel = object()\n"
        "print(isinstance(x, object), id(x) == id(x), sentinel is not object())\n"
        "for exc in (SystemExit, KeyboardInterrupt, GeneratorExit):\n"
        "    try:\n        raise exc()\n    except BaseException as e:\n        print(type(e).__name__)"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "True True True\nSystemExit\nKeyboardInterrupt\nGeneratorExit\n"


def test_system_exit_ends_the_script(sandbox: Sandbox) -> None:
    ok = run(sandbox, "print('a')\nraise SystemExit\nprint('b')")
    assert (ok.error_code, ok.stdout) == (None, "a\n")
    failed = run(sandbox, "raise SystemExit(3)")
    assert failed.error_code == "runtime_error"
    assert "SystemExit: 3" in str(failed.output)


def test_unknown_module_is_module_not_found(sandbox: Sandbox) -> None:
    source = "try:\n    import numpyy\nexcept ModuleNotFoundError as e:\n    print('MNF', e.name)"
    assert run(sandbox, source).stdout == "MNF numpyy\n"
    execution = run(sandbox, "import numpyy")
    assert execution.error_code == "policy_violation"
    assert "ModuleNotFoundError: No module named 'numpyy'" in execution.output.message


def test_type_checking_and_star_imports(sandbox: Sandbox) -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import nothing\n"
        "from math import *\nfrom collections import *\nprint(sqrt(16), pi > 3, Counter('aa'))"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "4.0 True Counter({'a': 2})\n", execution.output


def test_star_import_binds_only_public_members() -> None:
    for name, proxy in build_proxies(["json", "sys", "types", "typing"]).items():
        assert all(not key.startswith("_") for key in type(proxy).__all__), name


def test_module_versions_and_operator_methods(sandbox: Sandbox) -> None:
    source = (
        "import json, re\nprint(type(json.__version__).__name__, type(re.__version__).__name__)\n"
        "print(list.__add__([1], [2]), str.__contains__('abc', 'b'), (3).__mul__(2))\n"
        "print(sorted([3, 1], key=int.__neg__), dict.__getitem__({'a': 1}, 'a'))"
    )
    execution = run(sandbox, source)
    assert execution.stdout == "str str\n[1, 2] True 6\n[3, 1] 1\n", execution.output


@pytest.mark.parametrize(
    "expr",
    [
        "print.__getattribute__('__self__')",
        "getattr(int, '__subclasses__')",
        "(1).__reduce_ex__(2)",
        "json.dumps.__get__",
        "getattr(json.JSONEncoder, '__setattr__')",
        "object.__new__(json.JSONEncoder)",
    ],
)
def test_guard_subverting_dunders_stay_unreadable(sandbox: Sandbox, expr: str) -> None:
    execution = run(sandbox, f"import json\nprint('GOT', {expr})")
    assert execution.error_code in ("runtime_error", "policy_violation")
    assert "GOT" not in execution.stdout


def test_messages_and_reprs_read_like_pythons(sandbox: Sandbox) -> None:
    source = (
        "import json\nprint(repr(print), repr(final_result), repr(type), type.__name__)\n"
        "print(type(json), type(print))\n"
        "for call in (lambda: getattr(), lambda: hasattr(1), lambda: print(1, bad=2)):\n"
        "    try:\n        call()\n    except TypeError as e:\n        print(e)"
    )
    execution = run(sandbox, source)
    assert execution.stdout == (
        "<built-in function print> <built-in function final_result> <class 'type'> type\n"
        "<class 'module'> <class 'builtin_function_or_method'>\n"
        "getattr() missing 2 required positional arguments: 'obj' and 'name'\n"
        "hasattr() missing 1 required positional argument: 'name'\n"
        "print() got an unexpected keyword argument 'bad'\n"
    )
    for internal in ("guarded_getattr", "safe_hasattr", "sandbox.", "ScriptRuntime", "0x"):
        assert internal not in execution.stdout


def test_print_and_helpers_keep_their_internals(sandbox: Sandbox) -> None:
    for expr in ("print._call", "final_result._call.__self__", "getattr(print, '_call')"):
        execution = run(sandbox, f"print('GOT', {expr})")
        assert execution.error_code in ("policy_violation", "runtime_error"), expr
        assert "GOT" not in execution.stdout
