"""The language layer: what a script may write, read, call and import.

Restricted compilation (:mod:`~.compiler`, :mod:`~.names`, :mod:`~.fastwalk`,
:mod:`~.syntax`), the run-time guards and safe builtins (:mod:`~.guards`,
:mod:`~.classes`, :mod:`~.control`, :mod:`~.safe_format`, :mod:`~.callables`,
:mod:`~.copy_hooks`, :mod:`~.evaluate`), and what ``import`` gives a script
(:mod:`~.modules`, :mod:`~.module_proxy`, :mod:`~.stdlib_members`, :mod:`~.stdlib_safe`,
:mod:`~.sysproxy`, :mod:`~.script_asyncio`, :mod:`~.data_modules`, :mod:`~.files`);
:mod:`~.jsonsafe` turns results into JSON and :mod:`~.audit` watches library code.
Defence in depth: the OS layer (:mod:`sandbox.worker.confine`) holds on its own.
"""
