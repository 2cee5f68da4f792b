"""The host side: what runs in the caller's process.

:class:`~sandbox.host.sandbox.Sandbox` owns a supervised zygote and hands each
:class:`~sandbox.host.session.Session` its worker; host tools, admission, the cgroup
and staged writes live here too. Everything a worker sends is validated here
(:mod:`sandbox.host.frames`) as hostile input. Nothing in this package runs inside a
worker.
"""
