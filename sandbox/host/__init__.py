"""The host side: what runs in the caller's process.

:class:`~sandbox.host.sandbox.Sandbox` owns a
:class:`~sandbox.host.supply.WorkerSupply` (a supervised zygote, spares, admission, the
cgroup, tool threads) and hands it to each :class:`~sandbox.host.session.Session`,
which draws its worker from it; host tools and staged writes live here too. Everything
a worker sends is validated here (:mod:`sandbox.host.frames`) as hostile input. Nothing
in this package runs inside a worker.
"""
