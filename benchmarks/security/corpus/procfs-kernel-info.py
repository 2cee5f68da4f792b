# id: procfs-kernel-info
# category: procfs
# technique: read host-wide procfs files (/proc/1/cmdline, /proc/mounts) and the host's /etc/passwd through /proc/1/root
# success: a host file's content is printed
# expected: contained
for path in ("/proc/1/cmdline", "/proc/mounts", "/proc/1/root/etc/passwd"):
    try:
        with open(path, "rb") as f:
            print(path, f.read(300))
    except OSError as exc:
        print(path, exc)
