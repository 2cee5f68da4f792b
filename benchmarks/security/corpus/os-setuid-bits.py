# id: os-setuid-bits
# category: os
# technique: write a file under the writable mount and give it setuid, setgid or sticky bits: chmod, fchmod, open and mkdir with the bits in their mode (the worker's uid maps to the host owner)
# success: a file or directory with a setuid, setgid or sticky bit appears on the host
# expected: rejected
import os


def mark(prefix, step):
    if step == "chmod":
        with open(prefix + "-chmod", "w") as out:
            out.write("x")
        os.chmod(prefix + "-chmod", 0o6755)
    elif step == "fchmod":
        os.fchmod(os.open(prefix + "-fchmod", os.O_WRONLY | os.O_CREAT, 0o755), 0o4755)
    elif step == "open":
        os.umask(0)
        os.open(prefix + "-open", os.O_WRONLY | os.O_CREAT, 0o6755)
    else:
        os.mkdir(prefix + "-dir", 0o3777)


for base in ({{MOUNT_RW}}, {{MOUNT_RW_HOST}}):
    for step in ("chmod", "fchmod", "open", "mkdir"):
        try:
            mark(base + "/" + {{NONCE}}, step)
            print(base, step, "done")
        except Exception as exc:
            print(base, step, type(exc).__name__)
