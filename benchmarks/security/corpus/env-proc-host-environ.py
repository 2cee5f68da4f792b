# id: env-proc-host-environ
# category: environment
# technique: /proc/<host pid>/environ and /proc/1/environ
# success: the host's environment secret is printed
# expected: contained
for pid in ({{HOST_PID}}, 1):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            print(pid, f.read())
    except OSError as exc:
        print(pid, exc)
