"""The OS layer: confining a freshly forked worker before it runs any script.

:mod:`~.steps` applies them in order: process group and descriptors, rlimits,
:mod:`~.namespaces` and the :mod:`~.minimal_root`, :mod:`~.staging` of writable mounts,
:mod:`~.landlock`, :mod:`~.privileges`, then the :mod:`~.seccomp` filter built from
:mod:`~.syscalls`. This is the security boundary.
"""
