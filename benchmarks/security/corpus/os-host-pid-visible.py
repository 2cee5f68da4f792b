# id: os-host-pid-visible
# category: os
# technique: name the host process by its pid: its session (getsid), group, limits, priority and CPUs
# success: the host's session id is printed (host-sid=...)
# expected: rejected
import os
import resource

for name, call in [
    ("host-sid", lambda: os.getsid({{HOST_PID}})),
    ("host-pgid", lambda: os.getpgid({{HOST_PID}})),
    ("host-nofile", lambda: resource.prlimit({{HOST_PID}}, resource.RLIMIT_NOFILE)),
    ("host-nice", lambda: os.getpriority(os.PRIO_PROCESS, {{HOST_PID}})),
    ("host-cpus", lambda: sorted(os.sched_getaffinity({{HOST_PID}}))),
]:
    try:
        print(f"{name}={call()}")
    except OSError as exc:
        print(name, "refused:", exc.errno)
