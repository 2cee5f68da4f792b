# id: os-getpgid-scan
# category: os
# technique: ask getpgid and getsid of every pid of the sandbox's PID namespace, which the workers of all its sessions share, to find and count the other sessions' workers
# success: the script names the pid of another process of the sandbox (printed as other-pid=N)
# expected: rejected
import os

for pid in range(1, 4096):
    if pid == os.getpid():
        continue
    for ask in (os.getpgid, os.getsid):
        try:
            ask(pid)
        except Exception:
            continue
        print(f"other-pid={pid}")
        break
