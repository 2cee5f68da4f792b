# id: os-staged-deep-sparse
# category: os
# technique: sparse files far beyond the budget, below a path longer than PATH_MAX reached with chdir, so that the host can neither apply nor measure them by path
# success: the writable mount holds more than its budget
# expected: rejected
import os

try:
    os.chdir({{MOUNT_RW_HOST}})
    os.mkdir({{NONCE}})
    os.chdir({{NONCE}})
    for _ in range(20):
        os.mkdir("d" * 250)
        os.chdir("d" * 250)
    for name in ("a", "b", "c"):
        fd = os.open(name, os.O_WRONLY | os.O_CREAT)
        os.ftruncate(fd, 700_000)
        os.close(fd)
    print("three sparse files of 700 kB, deep")
except OSError as exc:
    print("blocked:", type(exc).__name__, exc)
