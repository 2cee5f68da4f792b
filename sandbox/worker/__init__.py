"""The worker side: what runs inside the confined worker process.

Only the standard library, RestrictedPython and the stdlib-only shared modules
(:mod:`sandbox.protocol`, :mod:`sandbox.limits_text`) may be imported from here: this
code is forked thousands of times and is the attack surface (a test enforces it).

- :mod:`~sandbox.worker.zygote` — the fork server; :mod:`~sandbox.worker.serve` — one
  worker's life; :mod:`~sandbox.worker.runtime` — one session's script state.
- :mod:`sandbox.worker.language` — the language layer (restricted compile, guards,
  module proxies).
- :mod:`sandbox.worker.confine` — the OS layer (rlimits, seccomp, Landlock, namespaces).
"""
