"""What a session wrote under its writable mounts, seen and applied from the host.

Each session's worker writes private layers (``private.py``): the host reads them as
hostile input (``layer.py``, through ``dirfd.py``), charges the session with what they
hold and applies its changes path by path (``apply.py``, ``atomic.py``) while the worker
cannot run (``still.py``). Mounts a policy lets the worker write itself
(``writes = "direct"``) are only measured after each run (``direct.py``).
"""
