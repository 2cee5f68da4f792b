# id: os-setaffinity-host
# category: os
# technique: os.sched_setaffinity pins the host process to one CPU
# success: the host's CPU affinity changed
# expected: rejected
import os

cpus = sorted(os.sched_getaffinity({{HOST_PID}}))
os.sched_setaffinity({{HOST_PID}}, {cpus[-1]} if len(cpus) > 1 else {cpus[0]})
print(os.sched_getaffinity({{HOST_PID}}))
