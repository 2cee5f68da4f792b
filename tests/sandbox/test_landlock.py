"""Landlock confinement works for an ordinary user, not only for root."""

from __future__ import annotations

import os
import sysconfig
import tempfile

import pytest

from sandbox.worker.confine import landlock


@pytest.mark.skipif(landlock.abi_version() < 1, reason="Landlock is not available here")
def test_restrict_as_an_unprivileged_user() -> None:
    allowed = tempfile.mkdtemp()
    os.chmod(allowed, 0o777)
    with open(os.path.join(allowed, "ok.txt"), "w") as f:
        f.write("readable")
    os.chmod(os.path.join(allowed, "ok.txt"), 0o644)
    # The interpreter's configuration is loaded now, as a user's zygote loads it before
    # confining: uid 65534 may be unable to import it from an interpreter under /root.
    sysconfig.get_config_vars()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            if os.geteuid() == 0:  # drop root, as most users run
                os.setgid(65534)
                os.setuid(65534)
            # The paths this user's zygote would find (an earlier test may have cached
            # root's, which include directories this user cannot open).
            landlock.python_paths.cache_clear()
            landlock.restrict([allowed, *landlock.python_paths()], [])
            results = []
            for path in (os.path.join(allowed, "ok.txt"), "/etc/hostname", "/etc/passwd"):
                try:
                    with open(path) as f:
                        results.append(f.read()[:8])
                except OSError as exc:
                    results.append(f"errno {exc.errno}")
            os.write(write_end, "|".join(results).encode())
        except BaseException as exc:
            os.write(write_end, f"failed: {exc!r}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        report = os.read(read_end, 4096).decode()
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    assert report == "readable|errno 13|errno 13", report
