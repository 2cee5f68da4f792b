"""codeact on a Ray cluster — the optional extra ``pip install 'codeact[ray]'``.

One long-lived actor per node owns a `Sandbox` (one zygote per node) and serves many
samples or sessions at once. `RaySandboxPool` gives an app sessions on those nodes
behind the `AsyncSandbox` interface, its tools called back in the caller's process;
``codeact bench run --backend ray`` (`codeact.ray.bench`) runs a suite's samples there.

The package is named after the engine it runs on, like the extra: everything in it is
Ray-specific, and ``import codeact.ray`` fails with the install command where Ray is
missing, while the rest of codeact never imports it.
"""

from __future__ import annotations

try:
    import ray as _ray  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"codeact.ray needs Ray, which is not installed ({exc}): pip install 'codeact[ray]'"
    ) from exc

from codeact.ray.pool import RaySandboxPool, RaySession

__all__ = ["RaySandboxPool", "RaySession"]
