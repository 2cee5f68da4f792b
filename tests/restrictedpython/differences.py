"""Where the sandbox's compiler and stock RestrictedPython 9.0 differ, and why it is safe.

Each entry names an upstream test (its id below ``upstream/``), why our compiler behaves
otherwise, and a test of ours that shows the difference is still safe. ``conftest.py``
marks exactly these tests ``xfail(strict=True)``: a difference that disappears, or one
that is not listed, fails the run. ``test_differences.py`` checks that every upstream id
names a collected test and every covering test exists. ``docs/security.md``
(*Against stock RestrictedPython*) has the short form of this table.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

_DID_NOT = pytest.fail.Exception


class Difference(NamedTuple):
    reason: str
    #: ``path::test`` of a test of ours, relative to ``tests/``.
    covered_by: str


def upstream_id(nodeid: str) -> str:
    """``tests/restrictedpython/upstream/test_eval.py::t`` -> ``test_eval.py::t``."""
    return nodeid.split("upstream/", 1)[-1]


NATIVE = Difference(
    "subscripts, iteration, unpacking, `name += x`, `*args` calls and loads of public "
    "attributes run natively: no _getitem_/_getiter_/_unpack_sequence_/_inplacevar_/"
    "_apply_/_getattr_ call. Those hooks exist for per-object access checks the sandbox "
    "does not have; its boundary is what a script can hold (no frames, real modules or "
    "runtime objects), and private and format-like attributes are still checked",
    "sandbox/test_escapes_introspection.py::test_no_route_to_the_runtime",
)
FORMATTER = Difference(
    "public attributes of a string.Formatter are read natively (stock refuses them in "
    "safer_getattr); the sandbox never hands out string.Formatter, and str.format "
    "walks only what the attribute guard allows",
    "restrictedpython/test_still_safe.py::test_no_string_formatter",
)
PRIVATE_NAME = Difference(
    "names with one leading underscore and none trailing (`_x`) are the script's own: "
    "variables, functions, classes, arguments, import aliases, except/with targets; "
    "the guards' names (`_getattr_`), dunders, `__x` and `_sunder_` stay refused",
    "sandbox/test_private_names.py::test_other_underscore_names_are_still_refused_at_compile_time",
)
PRIVATE_ATTR = Difference(
    "`obj._x` compiles and is checked at run time: only the script's own objects and "
    "classes have private attributes",
    "sandbox/test_private_names.py::test_private_attributes_of_anything_else_are_refused",
)
ROLES = Difference(
    "`x__roles__` is Zope's security declaration, which the sandbox does not use: it is "
    "a public attribute like any other, and stores to library objects are refused",
    "sandbox/test_escapes.py::test_library_objects_stay_read_only",
)
READABLE_DUNDER = Difference(
    "`__init__`, `__name__`, `__class__` and a few other dunders may be read; `__init__` "
    "and `__class__` are checked at run time",
    "sandbox/test_escapes_classes.py::test_library_objects_cannot_be_reinitialised",
)
AUG_TARGET = Difference(
    "`a.x += 1` and `a[i] += 1` compile: the attribute store goes through _write_ "
    "(the script's own objects only), subscripts are the script's own containers",
    "restrictedpython/test_still_safe.py::test_augmented_assignment_writes_only_the_scripts_own",
)
NONLOCAL = Difference(
    "`nonlocal` is allowed; its names go through the same name check as every binding",
    "fuzz/test_fuzz_bindings.py::test_no_binding_reaches_a_reserved_name",
)
PRINT = Difference(
    "no print collector: `print` is the sandbox's capturing builtin (no _print_, no "
    "warning about `printed`), and `printed` is a refused name",
    "sandbox/test_run.py::test_ending_with_neither_is_an_observation_of_printed_text",
)
USED_NAMES = Difference(
    "no used_names report (RestrictionCapableEval relies on it to pick its globals); "
    "nothing in the sandbox reads it, and the compile-time checks stand on their own",
    "sandbox/test_compiler.py::test_refused_at_compile_time",
)
METACLASS = Difference(
    "a global `__metaclass__` is not applied to class statements: scripts cannot choose "
    "a metaclass in any way",
    "sandbox/test_run.py::test_abstract_classes_but_no_metaclass",
)

STRICTER = Difference(
    "refused here, accepted by stock: a name that is not an identifier "
    "(compile_restricted_function's `<foo>.bar.__baz__`), a module whose name starts "
    "with `_` (`from _a import m`): every part of a name follows the one name rule",
    "sandbox/test_compiler.py::test_refused_at_compile_time",
)

EVAL_EXEC = Difference(
    "eval/exec of strings are the sandbox's own (sandbox/worker/language/evaluate.py): the string is read "
    "once as an exact str, compiled by the same transformer, and run with the guards "
    "passed as arguments (never looked up in the namespace the script holds); a namespace "
    "without builtins gets the safe ones",
    "sandbox/test_eval_exec.py::test_the_scripts_rules_hold_inside",
)

STAR_IMPORT = Difference(
    "`from m import *` binds the members of the module proxy's __all__: its public "
    "members that pass the name rule",
    "sandbox/test_compat.py::test_star_import_binds_only_public_members",
)

ASYNC = Difference(
    "async def/await/async for/async with run on the sandbox's own event loop "
    "(sandbox/worker/language/script_asyncio.py): no loop, executor, task stack or coroutine frame is "
    "reachable",
    "sandbox/test_script_async.py::test_loop_and_frames_out_of_reach",
)

MEMBRANE = Difference(
    "compiled code checks every value native code hands it (a comprehension's items, "
    "call results, parameters) with the membrane's functions, which the worker binds "
    "in the script's globals; RestrictionCapableEval runs code with no builtins and only "
    "RestrictedPython's guard names",
    "sandbox/test_membrane.py::test_every_position_checks_what_native_code_hands_over",
)

DIFFERENCES: dict[str, Difference] = {
    # MEMBRANE
    "test_eval.py::test_Eval__RestictionCapableEval__eval__2": MEMBRANE,
    # EVAL_EXEC, STAR_IMPORT, ASYNC
    "test_compile.py::test_compile_restricted_eval": EVAL_EXEC,
    "transformer/test_eval_exec.py::test_RestrictingNodeTransformer__visit_Exec__2": EVAL_EXEC,
    "transformer/test_eval_exec.py::test_RestrictingNodeTransformer__visit_Eval__1": EVAL_EXEC,
    "transformer/test_import.py::test_RestrictingNodeTransformer__visit_Import_star__2": STAR_IMPORT,
    "transformer/test_async.py::test_async_def": ASYNC,
    "transformer/test_yield.py::test_async_yield_from": ASYNC,
    # STRICTER
    "test_compile_restricted_function.py::test_compile_restricted_function_allows_invalid_python_identifiers_as_function_name": STRICTER,
    "transformer/test_import.py::test_RestrictingNodeTransformer__visit_Import_6": STRICTER,
    # NATIVE
    "test_Guards.py::test_Guards__guarded_unpack_sequence__1": NATIVE,
    "test_iterating_over_dict_items.py::test_iterate_over_dict_items_plain": NATIVE,
    "transformer/test_assign.py::test_RestrictingNodeTransformer__visit_Assign__1": NATIVE,
    "transformer/test_assign.py::test_RestrictingNodeTransformer__visit_Assign__2": NATIVE,
    "transformer/test_attribute.py::test_RestrictingNodeTransformer__visit_Attribute__3": NATIVE,
    "transformer/test_attribute.py::test_RestrictingNodeTransformer__visit_Attribute__7": NATIVE,
    "transformer/test_attribute.py::test_RestrictingNodeTransformer__visit_Attribute__8": NATIVE,
    "transformer/test_augassign.py::test_RestrictingNodeTransformer__visit_AugAssign__1": NATIVE,
    "transformer/test_call.py::test_RestrictingNodeTransformer__visit_Call__2": NATIVE,
    "transformer/test_conditional.py::test_RestrictingNodeTransformer__test_ternary_if": NATIVE,
    "transformer/test_dict_comprehension.py::test_dict_comprehension_with_attrs": NATIVE,
    "transformer/test_iterator.py::test_RestrictingNodeTransformer__guard_iter__1": NATIVE,
    "transformer/test_iterator.py::test_RestrictingNodeTransformer__guard_iter__2": NATIVE,
    "transformer/test_subscript.py::test_read_simple_subscript": NATIVE,
    "transformer/test_subscript.py::test_read_subscript_with_variable": NATIVE,
    "transformer/test_subscript.py::test_tuple_subscript": NATIVE,
    "transformer/test_subscript.py::test_read_slice_subscript_no_upper_bound": NATIVE,
    "transformer/test_subscript.py::test_read_slice_subscript_no_lower_bound": NATIVE,
    "transformer/test_subscript.py::test_read_slice_subscript_no_step": NATIVE,
    "transformer/test_subscript.py::test_read_slice_subscript_with_step": NATIVE,
    "transformer/test_subscript.py::test_read_extended_slice_subscript": NATIVE,
    "transformer/test_with_stmt.py::test_with_stmt_unpack_sequence": NATIVE,
    "transformer/test_with_stmt.py::test_with_stmt_multi_ctx_unpack_sequence": NATIVE,
    "transformer/test_with_stmt.py::test_with_stmt_attribute_access": NATIVE,
    "transformer/test_with_stmt.py::test_with_stmt_subscript": NATIVE,
    # FORMATTER
    "test_Guards.py::test_Guards__safer_getattr__1e": FORMATTER,
    "test_Guards.py::test_Guards__safer_getattr__1g": FORMATTER,
    "test_Guards.py::test_Guards__safer_getattr__1h": FORMATTER,
    "test_Guards.py::test_Guards__safer_getattr__1i": FORMATTER,
    "test_Guards.py::test_Guards__safer_getattr__1j": FORMATTER,
    "test_Guards.py::test_Guards__safer_getattr__1k": FORMATTER,
    # PRIVATE_NAME
    "test_compile.py::test_compile__compile_restricted_exec__3": PRIVATE_NAME,
    "test_eval.py::test_Eval__RestrictionCapableEval_1": PRIVATE_NAME,
    "transformer/test_classdef.py::test_RestrictingNodeTransformer__visit_ClassDef__2": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_RestrictingNodeTransformer__visit_FunctionDef__1": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_RestrictingNodeTransformer__visit_FunctionDef__2": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_RestrictingNodeTransformer__visit_FunctionDef__3": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_RestrictingNodeTransformer__visit_FunctionDef__4": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_positional_only_arg_with_underscore_is_rejected": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_positional_only_arg_with_default_underscore_is_rejected": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_RestrictingNodeTransformer__visit_FunctionDef__7": PRIVATE_NAME,
    "transformer/test_functiondef.py::test_positional_only_lambda_arg_with_underscore_is_rejected": PRIVATE_NAME,
    "transformer/test_import.py::test_RestrictingNodeTransformer__visit_Import__4": PRIVATE_NAME,
    "transformer/test_import.py::test_RestrictingNodeTransformer__visit_Import__7": PRIVATE_NAME,
    "transformer/test_lambda.py::test_RestrictingNodeTransformer__visit_Lambda__1": PRIVATE_NAME,
    "transformer/test_lambda.py::test_RestrictingNodeTransformer__visit_Lambda__2": PRIVATE_NAME,
    "transformer/test_lambda.py::test_RestrictingNodeTransformer__visit_Lambda__3": PRIVATE_NAME,
    "transformer/test_lambda.py::test_RestrictingNodeTransformer__visit_Lambda__4": PRIVATE_NAME,
    "transformer/test_lambda.py::test_RestrictingNodeTransformer__visit_Lambda__7": PRIVATE_NAME,
    "transformer/test_lambda.py::test_RestrictingNodeTransformer__visit_Lambda__8": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__2": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__3": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__4": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__4_4": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__4_5": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__4_6": PRIVATE_NAME,
    "transformer/test_name.py::test_RestrictingNodeTransformer__visit_Name__4_7": PRIVATE_NAME,
    "transformer/test_try.py::test_RestrictingNodeTransformer__visit_ExceptHandler__2": PRIVATE_NAME,
    # USED_NAMES
    "test_compile.py::test_compile__compile_restricted_eval__used_names": USED_NAMES,
    "test_eval.py::test_prepRestrictedCode": USED_NAMES,
    "test_eval.py::test_call": USED_NAMES,
    "test_eval.py::test_eval": USED_NAMES,
    "test_eval.py::test_Eval__RestictionCapableEval__prepRestrictedCode_1": USED_NAMES,
    "test_eval.py::test_Eval__RestictionCapableEval__eval_1": USED_NAMES,
    "transformer/test_call.py::test_RestrictingNodeTransformer__visit_Call__1": USED_NAMES,
    "transformer/test_fstring.py::test_transform": USED_NAMES,
    # PRINT
    "test_compile.py::test_compile_restricted": PRINT,
    "test_compile_restricted_function.py::test_compile_restricted_function": PRINT,
    "test_compile_restricted_function.py::test_compile_restricted_function_func_wrapped": PRINT,
    "test_compile_restricted_function.py::test_compile_restricted_function_with_arguments": PRINT,
    "test_compile_restricted_function.py::test_compile_restricted_function_can_access_global_variables": PRINT,
    "test_compile_restricted_function.py::test_compile_restricted_function_pre_parse_exec": PRINT,
    "test_print_function.py::test_print_function__simple_prints": PRINT,
    "test_print_function.py::test_print_function_with_star_args": PRINT,
    "test_print_function.py::test_print_function_with_kw_args": PRINT,
    "test_print_function.py::test_print_function__protect_file": PRINT,
    "test_print_function.py::test_print_function__nested_print_collector": PRINT,
    "test_print_function.py::test_print_function__with_printed_no_print": PRINT,
    "test_print_function.py::test_print_function__with_printed_no_print_nested": PRINT,
    "test_print_function.py::test_print_function__with_print_no_printed": PRINT,
    "test_print_function.py::test_print_function__with_print_no_printed_nested": PRINT,
    "test_print_function.py::test_print_function_no_new_scope": PRINT,
    "test_print_function.py::test_print_function_pass_print_function": PRINT,
    "test_print_function.py::test_print_function_conditional_print": PRINT,
    "transformer/test_fstring.py::test_f_string_self_documenting_expressions": PRINT,
    # PRIVATE_ATTR
    "transformer/test_attribute.py::test_RestrictingNodeTransformer__visit_Attribute__1": PRIVATE_ATTR,
    # ROLES
    "transformer/test_attribute.py::test_RestrictingNodeTransformer__visit_Attribute__2": ROLES,
    # AUG_TARGET
    "transformer/test_augassign.py::test_RestrictingNodeTransformer__visit_AugAssign__2": AUG_TARGET,
    "transformer/test_augassign.py::test_RestrictingNodeTransformer__visit_AugAssign__3": AUG_TARGET,
    "transformer/test_augassign.py::test_RestrictingNodeTransformer__visit_AugAssign__4": AUG_TARGET,
    "transformer/test_augassign.py::test_RestrictingNodeTransformer__visit_AugAssign__5": AUG_TARGET,
    # READABLE_DUNDER
    "transformer/test_call.py::test_visit_Call__private_method": READABLE_DUNDER,
    # METACLASS
    "transformer/test_classdef.py::test_RestrictingNodeTransformer__visit_ClassDef__3": METACLASS,
    # NONLOCAL
    "transformer/test_global_local.py::test_Nonlocal": NONLOCAL,
}


#: The exception each listed test fails with, where it is not an ``AssertionError``:
#: ``pytest.raises``/``warns`` that saw nothing (``Failed``), or the error the test's
#: own code meets when our compiler did not call a hook or made no code object. The
#: marks carry it as ``raises=``, so that a test failing for another reason — an
#: adapter that broke, an import that failed — is a failure, not an expected one.
FAILS_WITH: dict[str, type[BaseException]] = {
    # The membrane refuses the module the test hands to compiled code.
    "test_Guards.py::test_Guards__safer_getattr__1e": TypeError,
    "test_Guards.py::test_Guards__safer_getattr__1g": _DID_NOT,
    "test_Guards.py::test_Guards__safer_getattr__1h": _DID_NOT,
    "test_Guards.py::test_Guards__safer_getattr__1i": _DID_NOT,
    "test_Guards.py::test_Guards__safer_getattr__1j": _DID_NOT,
    "test_Guards.py::test_Guards__safer_getattr__1k": _DID_NOT,
    "test_compile.py::test_compile_restricted": _DID_NOT,
    "test_compile.py::test_compile_restricted_eval": _DID_NOT,
    "test_eval.py::test_Eval__RestrictionCapableEval_1": _DID_NOT,
    "test_iterating_over_dict_items.py::test_iterate_over_dict_items_plain": _DID_NOT,
    "test_eval.py::test_Eval__RestictionCapableEval__eval_1": TypeError,
    "test_eval.py::test_call": TypeError,
    "test_eval.py::test_Eval__RestictionCapableEval__eval__2": TypeError,
    "test_print_function.py::test_print_function__simple_prints": KeyError,
    "test_print_function.py::test_print_function_with_star_args": KeyError,
    "test_print_function.py::test_print_function_with_kw_args": KeyError,
    "test_eval.py::test_eval": TypeError,
    "test_print_function.py::test_print_function__nested_print_collector": TypeError,
    "test_print_function.py::test_print_function_conditional_print": TypeError,
    "test_print_function.py::test_print_function_no_new_scope": TypeError,
    "test_print_function.py::test_print_function_pass_print_function": TypeError,
    "transformer/test_subscript.py::test_read_extended_slice_subscript": TypeError,
    "transformer/test_subscript.py::test_read_simple_subscript": TypeError,
    "transformer/test_subscript.py::test_read_slice_subscript_no_lower_bound": TypeError,
    "transformer/test_subscript.py::test_read_slice_subscript_no_step": TypeError,
    "transformer/test_subscript.py::test_read_slice_subscript_no_upper_bound": TypeError,
    "transformer/test_subscript.py::test_read_slice_subscript_with_step": TypeError,
    "transformer/test_subscript.py::test_tuple_subscript": TypeError,
    "transformer/test_attribute.py::test_RestrictingNodeTransformer__visit_Attribute__3": AttributeError,
    "transformer/test_classdef.py::test_RestrictingNodeTransformer__visit_ClassDef__3": AttributeError,
    "transformer/test_conditional.py::test_RestrictingNodeTransformer__test_ternary_if": AttributeError,
    "transformer/test_fstring.py::test_f_string_self_documenting_expressions": KeyError,
}


def expected_exception(upstream: str) -> type[BaseException]:
    """What the listed upstream test ``upstream`` fails with."""
    return FAILS_WITH.get(upstream, AssertionError)
