# id: procfs-host-fd
# category: procfs
# technique: reopen the host's open descriptors through /proc/<host pid>/fd/*
# success: a host file (the secret) is read through the host's descriptor
# expected: rejected
import os

base = f"/proc/{ {{HOST_PID}} }/fd"
for name in os.listdir(base):
    try:
        target = os.readlink(f"{base}/{name}")
        with open(f"{base}/{name}", "rb") as f:
            print(name, target, f.read(200))
    except OSError as exc:
        print(name, exc)
