# id: env-proc-parent-environ
# category: environment
# technique: /proc/<ppid>/environ of the zygote, which started from the host
# success: the host's environment secret is printed
# expected: rejected
import os

with open(f"/proc/{os.getppid()}/environ", "rb") as f:
    print(f.read())
