"""The host's open-files limit, raised as far as it may go.

Each session holds a few descriptors in the host (its worker's channel and pidfd), a
thousand sessions some thousands: past the usual soft limit of 1024. A process may raise
its own soft limit up to the hard one without privilege, so a sandbox does at start;
``Sandbox.health()`` reports the limit in force.
"""

from __future__ import annotations

import resource


def raise_open_files_limit() -> int:
    """Raise ``RLIMIT_NOFILE``'s soft limit to the hard one; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)  # the kernel's nr_open default caps it anyway
    if soft != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass  # above the kernel's nr_open: keep what we have
    return int(soft)
