"""Where CodeactExecutor and smolagents' LocalPythonExecutor differ, and why.

Each entry names a test of smolagents' ``test_local_python_executor.py`` and the
difference that makes it fail here. ``conftest.py`` marks exactly these tests
``xfail(strict=True)``, with the exception their failure must raise where that proves
the point: a refused attack must still raise ``InterpreterError`` (only its wording
differs, the test's ``match=`` fails with an ``AssertionError``), an authorised one
must raise it too where the sandbox never exposes what it reaches. A difference that
disappears, or one not listed, fails the run. ``test_differences.py`` checks that every
entry names a collected test.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from smolagents.local_python_executor import InterpreterError


class Difference(NamedTuple):
    reason: str
    #: The exception the test's failure must be, when that matters.
    raises: type[BaseException] | None = None


def upstream_id(nodeid: str) -> str:
    """``.../test_local_python_executor.py::TestC::test_m[p]`` -> ``TestC::test_m[p]``."""
    return nodeid.split("test_local_python_executor.py::", 1)[-1]


OPERATIONS = Difference(
    "`_operations_count` and MAX_WHILE_ITERATIONS are the AST interpreter's guard against "
    "endless loops; the sandbox runs bytecode and bounds a script by CPU and wall-clock "
    "time instead (an endless loop ends as `cpu_limit`), so the state has no counter"
)
TIMEOUT = Difference(
    "smolagents raises its ExecutionTimeoutError after `timeout_seconds`; the sandbox's "
    "limit is the policy's `wall_s` (and CPU limits), enforced by killing the worker, and "
    "the script's error reaches the agent as InterpreterError"
)
JSON_VALUES = Difference(
    "values cross the process boundary as JSON: functions, classes, instances, generators, "
    "arrays and sets stay in the worker (the state read back holds the JSON ones), a tuple "
    "comes back as a list and non-string dict keys as strings, an output with no JSON form "
    "as its repr, and final_answer() needs a JSON value"
)
LAST_VALUE = Difference(
    "the output is the value of the last top-level expression, or of the name the last "
    "top-level statement assigns; the AST interpreter reports the last value it evaluated "
    "anywhere, inside an if, for or while body too"
)
MESSAGES = Difference(
    "errors are CPython's own exceptions, with a traceback of the script's lines "
    "(`TypeError: ... argument after ** must be a mapping`, `KeyError: 'key'`); the AST "
    "interpreter words its own (`Cannot unpack non-dict value`, `Could not index`)"
)
CPYTHON = Difference(
    "the sandbox runs CPython, whose result differs from the test's expectation: "
    "`var_args_method(1, 2, 3, x=4, y=5)` binds 1 to `self` (14, not 15); calling a "
    "function without its `self` argument raises TypeError; reading an undefined name "
    "(`food_item_counts`) raises NameError"
)
RESERVED = Difference(
    "`print` is a reserved name (assigning it is refused at compile time, in other words), "
    "and a tool that is one of Python's builtins is the sandbox's own builtin: the real "
    "`compile`, `exec` and `eval` never reach a script"
)
SUBMODULE_IMPORT = Difference(
    "a submodule of a curated package is imported as `from numpy.random import ...` "
    "(the language layer's module proxies); `import numpy.random as rd` is refused with "
    "that advice"
)
OS_LAYER = Difference(
    "an uncurated module such as `os`, allowed by name or by `*`, is contained by the OS "
    "layer: the worker's root has no files, so `os.listdir('./')` fails"
)
NOT_INSTALLED = Difference(
    "scikit-learn is not installed here; an allowed module must be installed (the test "
    "fails under smolagents' own executor too)"
)
NOT_A_MODULE = Difference(
    "allowed imports are module names, checked to exist: `asyncio.base_events.events` is "
    "an attribute (asyncio.events), not a module, and allowing it is refused"
)
REFUSED_IN_OUR_WORDS = Difference(
    "the attack is refused, in the sandbox's words: at compile time (dunder and private "
    "attribute names, `builtins` a reserved name, frame attributes) or by the module "
    "proxies (no `sys.modules`, `os.system`, `importlib.import_module`, private module "
    "attributes); the test's `match=` wants smolagents' wording",
    AssertionError,
)
NEVER_EXPOSED = Difference(
    "authorising `builtins`, `sys`, `os` or a dunder method does not expose what the "
    "sandbox never exposes: `builtins` stays a reserved name, frames' `f_builtins`, "
    "`sys.modules`, `os.popen`, `importlib.import_module` and dunder calls stay refused, "
    "so the script gets an error where smolagents lets it run",
    InterpreterError,
)
GUARDED_NOT_REFUSED = Difference(
    "`__class__` may be read (the readable dunders of docs/guide/scripts.md), directly or with `getattr`, "
    "which is the sandbox's guarded builtin: what a class object can then reach is "
    "checked at run time (tests/sandbox/test_escapes_classes.py)",
    pytest.fail.Exception,
)
UNCURATED_CONTAINED = Difference(
    "`posix`, allowed uncurated, is the OS layer's to contain: reading `posix.system` is "
    "allowed, and calling it runs inside the confined worker (no shell in its root, "
    "seccomp, its own namespaces)",
    pytest.fail.Exception,
)

DIFFERENCES: dict[str, Difference] = {
    # JSON_VALUES
    "TestEvaluatePythonCode::test_access_attributes": JSON_VALUES,
    "TestEvaluatePythonCode::test_dictcomp": JSON_VALUES,
    "TestEvaluatePythonCode::test_dictcomp_nested": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_annassign": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_class_def": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_class_def_with_ann_assign_attribute": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_class_def_with_ann_assign_name": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_class_def_with_ann_assign_subscript": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_class_def_with_assign_attribute_target": JSON_VALUES,
    "TestEvaluatePythonCode::test_evaluate_class_def_with_enum": JSON_VALUES,
    "TestEvaluatePythonCode::test_function_def_recovers_source_code": JSON_VALUES,
    "TestEvaluatePythonCode::test_generatorexp": JSON_VALUES,
    "TestEvaluatePythonCode::test_generatorexp_with_infinite_sequence": JSON_VALUES,
    "TestEvaluatePythonCode::test_listcomp_nested": JSON_VALUES,
    "TestEvaluatePythonCode::test_non_standard_comparisons": JSON_VALUES,
    "TestEvaluatePythonCode::test_nonsimple_augassign": JSON_VALUES,
    "TestEvaluatePythonCode::test_pandas": JSON_VALUES,
    "TestEvaluatePythonCode::test_set": JSON_VALUES,
    "TestEvaluatePythonCode::test_setcomp": JSON_VALUES,
    "TestEvaluatePythonCode::test_setcomp_nested": JSON_VALUES,
    "TestEvaluatePythonCode::test_types_as_objects": JSON_VALUES,
    "TestLocalPythonExecutor::test_function_def_recovers_source_code": JSON_VALUES,
    # MESSAGES
    "TestEvaluatePythonCode::test_adding_int_to_list_raises_error": MESSAGES,
    "TestEvaluatePythonCode::test_close_matches_subscript": MESSAGES,
    "TestEvaluatePythonCode::test_error_highlights_correct_line_of_code": MESSAGES,
    "TestEvaluatePythonCode::test_evaluate_call_starred_kwargs_errors[\\ndef test_func(**kwargs):\\n    return kwargs\\n\\ntest_func(**42)\\n-Cannot unpack non-dict value in **kwargs: int]": MESSAGES,
    "TestEvaluatePythonCode::test_evaluate_call_starred_kwargs_errors[\\ndef test_func(**kwargs):\\n    return kwargs\\n\\ntest_func(**None)\\n-Cannot unpack non-dict value in **kwargs: NoneType]": MESSAGES,
    "TestEvaluatePythonCode::test_evaluate_call_starred_kwargs_errors[code0-Cannot unpack non-dict value in **kwargs: list]": MESSAGES,
    "TestEvaluatePythonCode::test_evaluate_delete[del x\\n-Cannot delete name 'x': name is not defined]": MESSAGES,
    "TestEvaluatePythonCode::test_evaluate_delete[x = 5\\ndel x\\nx\\n-The variable `x` is not defined]": MESSAGES,
    'TestEvaluatePythonCode::test_evaluate_delete[x = {"key": "value"}\\ndel x["key"]\\nx["key"]\\n-Could not index {} with \'key\']': MESSAGES,
    "TestLocalPythonExecutor::test_evaluate_assign_error": MESSAGES,
    # SUBMODULE_IMPORT
    "TestEvaluatePythonCode::test_additional_imports": SUBMODULE_IMPORT,
    "TestEvaluatePythonCode::test_imports": SUBMODULE_IMPORT,
    # RESERVED
    "TestEvaluatePythonCode::test_assignment_cannot_overwrite_tool": RESERVED,
    "TestEvaluatePythonCode::test_dangerous_builtins_are_callable_if_explicitly_added": RESERVED,
    # LAST_VALUE
    "TestEvaluatePythonCode::test_boolops": LAST_VALUE,
    "TestEvaluatePythonCode::test_evaluate_for": LAST_VALUE,
    "TestEvaluatePythonCode::test_evaluate_if": LAST_VALUE,
    "TestEvaluatePythonCode::test_string_indexing": LAST_VALUE,
    "TestEvaluatePythonCode::test_tuple_target_in_iterator": LAST_VALUE,
    # OS_LAYER
    "TestEvaluatePythonCode::test_can_import_os_if_all_imports_authorized": OS_LAYER,
    "TestEvaluatePythonCode::test_can_import_os_if_explicitly_authorized": OS_LAYER,
    # NOT_INSTALLED
    "TestEvaluatePythonCode::test_can_import_sklearn_if_explicitly_authorized": NOT_INSTALLED,
    # OPERATIONS
    "TestEvaluatePythonCode::test_evaluate_assign": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_binop": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_call": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_constant": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_dict": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_expression": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_f_string": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_f_string_with_complex_format": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_f_string_with_format": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_list": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_name": OPERATIONS,
    "TestEvaluatePythonCode::test_evaluate_subscript": OPERATIONS,
    "TestEvaluatePythonCode::test_max_operations": OPERATIONS,
    "TestEvaluatePythonCode::test_operations_count": OPERATIONS,
    "TestEvaluatePythonCode::test_while": OPERATIONS,
    # CPYTHON
    "TestEvaluatePythonCode::test_exceptions": CPYTHON,
    "TestEvaluatePythonCode::test_tuple_id": CPYTHON,
    "TestEvaluatePythonCode::test_variable_args": CPYTHON,
    # REFUSED_IN_OUR_WORDS
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins[additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_dangerous_functions[additional_authorized_imports0-additional_tools0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_dangerous_functions[additional_authorized_imports1-additional_tools1-expected_error1]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_safe_functions[additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports0-additional_tools0-expected_error0-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports0-additional_tools0-expected_error0-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports1-additional_tools1-expected_error1-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports1-additional_tools1-expected_error1-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports2-additional_tools2-expected_error2-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports2-additional_tools2-expected_error2-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports3-additional_tools3-expected_error3-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports3-additional_tools3-expected_error3-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports4-additional_tools4-expected_error4-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings[additional_authorized_imports4-additional_tools4-expected_error4-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys[additional_authorized_imports0-additional_tools0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys[additional_authorized_imports1-additional_tools1-expected_error1]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys[additional_authorized_imports2-additional_tools2-expected_error2]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys[additional_authorized_imports3-additional_tools3-expected_error3]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_traceback[additional_authorized_imports0-additional_tools0-expected_error0-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_traceback[additional_authorized_imports0-additional_tools0-expected_error0-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_traceback[additional_authorized_imports1-additional_tools1-expected_error1-False]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_traceback[additional_authorized_imports1-additional_tools1-expected_error1-True]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_class_via_subclasses": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_dangerous_functions[additional_authorized_imports0-additional_tools0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_dangerous_functions[additional_authorized_imports1-additional_tools1-expected_error1]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[builtins.__import__]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[builtins.compile]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[builtins.eval]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[builtins.exec]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[builtins.globals]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[builtins.locals]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[os.popen]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[os.system]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_import[additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_load_module_via_builtin_importer[additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_load_module_via_builtin_importer[additional_authorized_imports1-expected_error1]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_access[class A:\\n    attr=1\\nx = A()\\nx_dict = x.__dict__-__dict__]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_call['string'.__dir__()-additional_allowed_dunder_methods0-__dir__]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_call[code2-additional_allowed_dunder_methods2-__getattribute__]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_call[code3-additional_allowed_dunder_methods3-__subclasses__]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_importlib[additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import asyncio; asyncio.base_events.events.subprocess-additional_authorized_imports6-expected_error6]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import asyncio; asyncio.base_events.events.subprocess-additional_authorized_imports7-expected_error7]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import doctest; doctest.inspect.os.system(':')-additional_authorized_imports4-expected_error4]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import doctest; doctest.inspect.os.system(':')-additional_authorized_imports5-expected_error5]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import queue; queue.threading._os.system(':')-additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import queue; queue.threading._os.system(':')-additional_authorized_imports1-expected_error1]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import queue; queue.threading._sys.modules['os'].system(':')-additional_authorized_imports10-expected_error10]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import queue; queue.threading._sys.modules['os'].system(':')-additional_authorized_imports9-expected_error9]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import random; random.__dict__['_os'].system(':')-additional_authorized_imports3-expected_error3]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import random; random._os.system(':')-additional_authorized_imports2-expected_error2]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import warnings; warnings.sys-additional_authorized_imports11-expected_error11]": REFUSED_IN_OUR_WORDS,
    'TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules_through_indirect_attribute_access[\\nimport functools\\nimport warnings\\nlist(filter(functools.partial(getattr, warnings), ["sys"]))\\n-additional_authorized_imports0-expected_error0]': REFUSED_IN_OUR_WORDS,
    'TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules_through_indirect_attribute_access[\\nimport functools\\nimport warnings\\nlist(map(functools.partial(getattr, warnings), ["sys"]))\\n-additional_authorized_imports2-expected_error2]': REFUSED_IN_OUR_WORDS,
    'TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules_through_indirect_attribute_access[\\nimport warnings\\nlist(map(getattr, [warnings], ["sys"]))\\n-additional_authorized_imports1-expected_error1]': REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys[additional_authorized_imports0-expected_error0]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys[additional_authorized_imports1-expected_error1]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[builtins]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[io]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[multiprocessing]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[os]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[pathlib]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[shutil]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[socket]": REFUSED_IN_OUR_WORDS,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys_for_all_dangerous_modules[subprocess]": REFUSED_IN_OUR_WORDS,
    # NEVER_EXPOSED
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins[additional_authorized_imports1-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_dangerous_functions[additional_authorized_imports2-additional_tools2-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_safe_functions[additional_authorized_imports1-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys[additional_authorized_imports4-additional_tools4-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_dangerous_functions[additional_authorized_imports2-additional_tools2-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_call['string'.__dir__()-additional_allowed_dunder_methods1-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_call[code4-additional_allowed_dunder_methods4-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_importlib[additional_authorized_imports1-None]": NEVER_EXPOSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys[additional_authorized_imports2-None]": NEVER_EXPOSED,
    # UNCURATED_CONTAINED
    "TestLocalPythonExecutorSecurity::test_vulnerability_for_all_dangerous_functions[posix.system]": UNCURATED_CONTAINED,
    # GUARDED_NOT_REFUSED
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_access[a = (); b = a.__class__-__class__]": GUARDED_NOT_REFUSED,
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_indirect_access": GUARDED_NOT_REFUSED,
    # NOT_A_MODULE
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_submodules[import asyncio; asyncio.base_events.events.subprocess-additional_authorized_imports8-expected_error8]": NOT_A_MODULE,
    # TIMEOUT
    "TestTimeout::test_custom_timeout_value": TIMEOUT,
    "TestTimeout::test_evaluate_python_code_with_timeout_raises": TIMEOUT,
    "TestTimeout::test_local_executor_custom_timeout": TIMEOUT,
    "TestTimeout::test_timeout_works_in_thread": TIMEOUT,
}
