# id: env-proc-self-environ
# category: environment
# technique: /proc/self/environ — the environment the process image started with
# success: the host's environment secret is printed
# expected: rejected
import os

with open("/proc/self/environ", "rb") as f:
    print(f.read())
