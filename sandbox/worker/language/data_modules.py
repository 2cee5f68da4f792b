"""The curated data-science modules: numpy, pandas, matplotlib, scipy, sympy.

Their proxies are generated (``module_proxy.py``: public members only, a submodule only
where the policy allows it by name) with the member lists below taken out, and the
zygote applies :func:`prepare` before any worker exists. What is refused, and why:

- **string evaluation** — ``pandas.eval``, ``DataFrame.query``/``DataFrame.eval`` (the
  CVE-2024-9880 class: pandas resolves attribute chains in the string itself, past the
  attribute guard), ``sympy.sympify``/``parse_expr`` of a string and everything that
  parses one (sympy ``eval``\\s the translated text with real builtins), ``lambdify``
  (``exec`` of generated source);
- **unpickling** — ``pandas.read_pickle``, ``numpy.load`` with ``allow_pickle=True`` (the
  proxy's ``load`` always passes ``allow_pickle=False``), ``DataFrame.to_pickle``'s
  counterpart ``read_pickle`` only: writing a pickle harms no one;
- **raw memory** — ``numpy.ctypeslib`` and ``numpy.lib`` (``stride_tricks.as_strided``
  builds out-of-bounds views) are submodules no data policy allows; ``frombuffer`` and
  the ``ndarray`` constructor check their bounds; an array over a buffer never holds
  objects (``ndarray(buffer=...)``, ``recarray(buf=...)`` with an object dtype read
  the script's bytes as object addresses: any object, forged ones included), which
  numpy's ``frombuffer`` refuses itself and ``numpy_memory`` refuses for the other
  two, with ``ndarray.resize(refcheck=False)`` (it frees what views still read);
- **processes, clipboard, databases, interactive sessions** — ``sympy.test``/``doctest``
  (a Python process whose command line is the arguments' ``repr()``), ``read_clipboard``,
  ``read_sql*``, ``sympy.preview`` (runs LaTeX), ``init_session``/``init_printing``,
  ``matplotlib.use``/``pyplot.switch_backend`` (a GUI backend), ``rc_file``/
  ``rc_file_defaults`` (reads an rc file that can name programs);
- ``pandas.io``/``pandas.api``/``pandas.core`` and every other submodule not listed in
  :data:`DATA_CATALOG` are unreachable (``pd.io.common`` imports ``os``).

Library code opens files itself (``read_csv``, ``savefig``, ``np.save``): those opens
are governed by the OS layer (the worker's minimal root and Landlock), not by the
language layer's ``open``.

Host side: constants only; :func:`prepare` runs in the zygote and imports the libraries.
Attribute stores on ``DataFrame``/``Series``/``Index`` are allowed (their setters are
pandas' API); on ``ndarray`` they are not (``strides`` and ``data`` reinterpret memory).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

from sandbox.worker import display
from sandbox.worker.language import dunders, formatters, guards
from sandbox.worker.language.control import RefusedInSandbox
from sandbox.worker.language.numpy_memory import checked_ndarray, close_object_buffers

#: Curated data modules (a policy names each; submodules not listed are unreachable).
DATA_CATALOG: tuple[str, ...] = (
    "matplotlib",
    "matplotlib.cm",
    "matplotlib.colors",
    "matplotlib.dates",
    "matplotlib.gridspec",
    "matplotlib.patches",
    "matplotlib.pyplot",
    "matplotlib.ticker",
    "numpy",
    "numpy.fft",
    "numpy.linalg",
    "numpy.random",
    "pandas",
    "scipy",
    "scipy.integrate",
    "scipy.interpolate",
    "scipy.linalg",
    "scipy.optimize",
    "scipy.signal",
    "scipy.special",
    "scipy.stats",
    "sympy",
)

#: Members left out of the curated proxies (on top of private names and submodules).
DATA_DENIED: dict[str, tuple[str, ...]] = {
    "numpy": ("ctypeslib", "lib", "f2py", "testing", "show_config", "show_runtime"),
    "pandas": (
        "eval",
        "read_pickle",
        "read_clipboard",
        "read_sql",
        "read_sql_query",
        "read_sql_table",
        "show_versions",
        "set_eng_float_format",
    ),
    "matplotlib": ("use", "rc_file", "rc_file_defaults", "rc_context", "get_configdir"),
    "matplotlib.pyplot": (
        "switch_backend",
        "rc_file",
        "rc_file_defaults",
        "install_repl_displayhook",
    ),
    "sympy": (
        "sympify",
        "parse_expr",
        "lambdify",
        # var() binds its symbols in the calling frame's globals: called back by library
        # code (json.dumps(default=sympy.var)), it writes into that library's module.
        "var",
        "preview",
        "init_session",
        "init_printing",
        "interactive_traversal",
        # The library's own test runners: they run pytest or doctest in the worker and
        # start a Python process whose command line holds the arguments' repr().
        "test",
        "doctest",
    ),
}

#: Thread pools the numeric libraries start at import unless told otherwise; a worker's
#: syscall filter forbids new threads, and the zygote must stay single-threaded to enter
#: its user namespace.
THREAD_ENVIRONMENT: dict[str, str] = {
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "NUMEXPR_MAX_THREADS": "1",
}


def _refuser(what: str, why: str) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise RefusedInSandbox(f"{what} is not available in the sandbox: {why}")

    refused.__name__ = what.rpartition(".")[2]
    return refused


def prepare(allowed: frozenset[str]) -> None:
    """Close the string-evaluation paths of the allowed libraries (zygote, once).

    They are closed in the library itself, so that they stay closed with the language
    layer off and for every route to them (a method reached through ``getattr``).
    ``*`` in ``allowed`` closes them in every one of these libraries that is installed.
    """
    if "*" in allowed:
        allowed = allowed | {n for n in ("pandas", "sympy") if importlib.util.find_spec(n)}
    if "pandas" in allowed:
        # Imported by name: the libraries are optional and carry no type information.
        pandas = importlib.import_module("pandas")
        pandas_eval = importlib.import_module("pandas.core.computation.eval")

        why = "it evaluates a string past the attribute guard (CVE-2024-9880)"
        vars(pandas_eval)["eval"] = _refuser("pandas.eval", why)
        pandas.DataFrame.query = _refuser("DataFrame.query", why)
        pandas.DataFrame.eval = _refuser("DataFrame.eval", why)
        # ``df.columns = [...]``, ``s.name = "x"``: setters that are pandas' API. Not
        # numpy's ndarray: its ``strides``/``data`` setters reinterpret raw memory.
        guards.allow_attribute_writes(pandas.DataFrame, pandas.Series, pandas.Index)
        formatters.close_pandas()
        _close_pandas_names()
        _close_pandas_plotting_backend()
    if "sympy" in allowed:
        _close_sympy()
    if allowed & {"numpy", "pandas", "scipy", "matplotlib", "sympy"}:
        # Each hands out numpy arrays: ``type(array)`` is the checked ndarray too.
        close_object_buffers()
        checked_ndarray()
    if "matplotlib" in allowed:
        formatters.close_matplotlib()
        _close_matplotlib_imports()
    _deafen_loaded(allowed)


def _deafen_loaded(allowed: frozenset[str]) -> None:
    # The membrane deafens a library class's attribute hooks when the class or one of
    # its objects first enters script code; the libraries' own classes are deafened
    # here too, for an object library code fills from the script's data and hands to
    # numpy without the script ever holding it.
    roots = tuple(f"{name}." for name in allowed)
    for name, module in list(sys.modules.items()):
        if module is None or not (name in allowed or name.startswith(roots)):
            continue
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, type):
                dunders.deafen(value)


def _close_sympy() -> None:
    parser = importlib.import_module("sympy.parsing.sympy_parser")
    why = "sympy evaluates the parsed text with Python's eval; build expressions from symbols"
    vars(parser)["eval_expr"] = _refuser("sympy string parsing", why)
    # lambdify writes Python source from an expression (a Function's name goes in as
    # written) and exec's it with the real builtins; library functions call it too
    # (nsolve), so it is replaced wherever a loaded sympy module holds it.
    real = importlib.import_module("sympy.utilities.lambdify").lambdify
    refused = _refuser("sympy.lambdify", "it generates Python source and runs it")
    for name, module in list(sys.modules.items()):
        if (name == "sympy" or name.startswith("sympy.")) and module is not None:
            for attr, value in list(vars(module).items()):
                if value is real:
                    vars(module)[attr] = refused
    _close_undefined_functions()


def _close_undefined_functions() -> None:
    # ``Function("F", **kwargs)`` makes each keyword an attribute of a new class, and
    # ``bases=`` its bases: ordinary names only, sympy's own function classes only.
    function = importlib.import_module("sympy.core.function")
    undefined, base_class = function.UndefinedFunction, function.Function
    real_new = undefined.__new__

    def __new__(mcl: Any, name: Any, bases: Any = None, __dict__: Any = None, **kwargs: Any) -> Any:
        dunders.ordinary_names(kwargs, "sympy.Function()")
        if __dict__ is not None:
            # An exact copy, checked and passed on: a dict subclass may list other keys
            # to a check than sympy's ``update`` copies.
            __dict__ = _exact(__dict__) if issubclass(type(__dict__), dict) else dict(__dict__)
            dunders.ordinary_names(list(__dict__), "sympy.Function()")
        bases = (function.AppliedUndef,) if bases is None else tuple(_exact(list(bases)))
        if not all(isinstance(b, type) and issubclass(b, base_class) for b in bases):
            raise RefusedInSandbox("sympy.Function(bases=...) takes sympy function classes only")
        return real_new(mcl, name, bases, __dict__, **kwargs)

    undefined.__new__ = staticmethod(__new__)


#: pandas methods that take a method's name as a str (``s.agg("sum")``) and read it from
#: the object with ``getattr``: every name handed to them is an ordinary public one.
PANDAS_NAMED_METHODS = ("agg", "aggregate", "transform", "apply")
_PANDAS_NAMING_CLASSES = (
    "pandas:Series",
    "pandas:DataFrame",
    "pandas.core.groupby:SeriesGroupBy",
    "pandas.core.groupby:DataFrameGroupBy",
    "pandas.core.window.rolling:Rolling",
    "pandas.core.window.rolling:Window",
    "pandas.core.window.expanding:Expanding",
    "pandas.core.window.ewm:ExponentialMovingWindow",
    "pandas.core.resample:Resampler",
)


def _exact(value: Any) -> Any:
    """``value`` rebuilt from the builtin containers' own storage, strings as exact
    ``str``: what is checked is then what the library reads (a script's subclass may
    answer ``isidentifier``, ``items()`` or ``==`` one way to a check, another to it)."""
    kind = type(value)
    if issubclass(kind, str):
        return str.__str__(value)
    if issubclass(kind, dict):
        return {_exact(key): _exact(item) for key, item in dict.items(value)}
    if issubclass(kind, list):
        return [_exact(item) for item in list.__iter__(value)]
    if issubclass(kind, tuple):
        return tuple(_exact(item) for item in tuple.__iter__(value))
    return value


def _method_names(func: Any) -> list[str]:
    if type(func) is str:
        return [func]
    if type(func) is dict:
        return [name for value in func.values() for name in _method_names(value)]
    if type(func) is list or type(func) is tuple:
        return [name for value in func for name in _method_names(value)]
    return []


def _named_aggregations(kwargs: dict[str, Any]) -> list[str]:
    # ``gb.agg(total=("col", "sum"))``: the second item of each pair names a method.
    return [
        name
        for value in kwargs.values()
        if type(value) is tuple and len(value) == 2
        for name in _method_names(value[1])
    ]


def _naming_checked(method: Any, where: str) -> Any:
    def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Checked and passed on as exact builtins (``_exact``).
        args = tuple(_exact(arg) for arg in args)
        kwargs = {key: _exact(value) for key, value in kwargs.items()}
        func = args[0] if args else kwargs.get("func", kwargs.get("arg"))
        for name in [*_method_names(func), *_named_aggregations(kwargs)]:
            if not (name.isidentifier() and not name.startswith("_")):
                raise RefusedInSandbox(
                    f"{where}({name!r}) is not available in the sandbox: a method's name "
                    "must be a public one"
                )
        return method(self, *args, **kwargs)

    checked.__name__ = getattr(method, "__name__", where)
    checked.__doc__ = getattr(method, "__doc__", None)
    return checked


def _close_pandas_names() -> None:
    # ``s.agg("__dict__")`` handed out the Series' real __dict__.
    for spec in _PANDAS_NAMING_CLASSES:
        module_name, _, class_name = spec.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name, None)
        if cls is None:
            continue
        for name in PANDAS_NAMED_METHODS:
            method = getattr(cls, name, None)  # inherited ones too
            if callable(method):
                setattr(cls, name, _naming_checked(method, f"{class_name}.{name}"))


def _close_pandas_plotting_backend() -> None:
    # ``pd.set_option("plotting.backend", "any.module")`` (or ``df.plot(backend=...)``)
    # makes the next plot import that module: matplotlib's only.
    core = importlib.import_module("pandas.plotting._core")
    load = core._load_backend

    def _load_backend(backend: Any) -> Any:
        if not (isinstance(backend, str) and str.__eq__(backend, "matplotlib") is True):
            raise RefusedInSandbox("only the matplotlib plotting backend is available")
        return load("matplotlib")  # the literal: a script's str subclass answers nothing

    vars(core)["_load_backend"] = _load_backend


def _close_matplotlib_imports() -> None:
    # The backend (``module://any.module``) and ``figure.hooks`` (``"module:callable"``,
    # called with every new figure) name modules that matplotlib imports; the script
    # can write rcParams past its validators (``dict.__setitem__``), so they are
    # checked where matplotlib reads them.
    registry = importlib.import_module("matplotlib.backends.registry").BackendRegistry
    load = registry.load_backend_module

    def load_backend_module(self: Any, backend: Any) -> Any:
        # An exact str: matplotlib reads the name again after this check.
        backend = _exact(backend)
        name = _exact(self._backend_module_name(backend))
        if not (type(name) is str and name.startswith("matplotlib.backends.backend_")):
            raise RefusedInSandbox("that matplotlib backend is not available in the sandbox")
        return load(self, backend)

    registry.load_backend_module = load_backend_module
    pyplot = importlib.import_module("matplotlib.pyplot")
    figure = pyplot.figure

    def checked_figure(*args: Any, **kwargs: Any) -> Any:
        hooks = dict.get(pyplot.rcParams, "figure.hooks")
        # None or an exact empty list only: a list subclass may say it is empty.
        if not (hooks is None or (type(hooks) is list and list.__len__(hooks) == 0)):
            raise RefusedInSandbox("rcParams['figure.hooks'] is not available in the sandbox")
        return figure(*args, **kwargs)

    checked_figure.__doc__ = figure.__doc__
    vars(pyplot)["figure"] = checked_figure
    # plt.show() attaches the open figures to the run's images (worker/display.py).
    vars(pyplot)["show"] = display.show


def safe_members(name: str) -> dict[str, Any]:
    """Members that replace the library's own in a curated proxy."""
    if name != "numpy":
        return {}
    real_load = importlib.import_module("numpy").load

    def load(file: Any, mmap_mode: Any = None, **kwargs: Any) -> Any:
        """numpy.load without pickles (allow_pickle is always False in the sandbox)."""
        if kwargs.pop("allow_pickle", False):
            raise RefusedInSandbox("numpy.load(allow_pickle=True) is not available: it unpickles")
        return real_load(file, mmap_mode, allow_pickle=False, **kwargs)

    return {"load": load, "ndarray": checked_ndarray()}
