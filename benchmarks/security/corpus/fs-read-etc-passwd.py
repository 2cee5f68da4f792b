# id: fs-read-etc-passwd
# category: filesystem
# technique: read /etc/passwd and /etc/shadow
# success: a line of the host's /etc/passwd is printed
# expected: contained
# ruff: noqa: SIM115
for path in ("/etc/passwd", "/etc/shadow"):
    try:
        print(open(path).read()[:500])
    except Exception as exc:
        print(path, type(exc).__name__)
raise PermissionError("nothing readable")
