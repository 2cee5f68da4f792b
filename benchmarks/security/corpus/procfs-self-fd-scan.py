# id: procfs-self-fd-scan
# category: procfs
# technique: list /proc/self/fd and /proc/self/fdinfo to find descriptors leaked from the host
# success: a leaked descriptor reads the secret file
# expected: rejected
import os

for name in os.listdir("/proc/self/fd"):
    try:
        fd = int(name)
        os.lseek(fd, 0, 0)
        print(name, os.readlink(f"/proc/self/fd/{name}"), os.read(fd, 200))
    except OSError as exc:
        print(name, exc)
