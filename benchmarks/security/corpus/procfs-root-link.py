# id: procfs-root-link
# category: procfs
# technique: /proc/self/root and /proc/<host pid>/root prefixes in front of the secret path
# success: the secret file is read through the magic link
# expected: contained
for prefix in ("/proc/self/root", f"/proc/{ {{HOST_PID}} }/root", f"/proc/{ {{HOST_PID}} }/cwd/../../.."):
    try:
        with open(prefix + {{SECRET_FILE}}) as f:
            print(prefix, f.read())
    except OSError as exc:
        print(prefix, exc)
