# id: fs-write-ro-mount
# category: filesystem
# technique: write to a file of the read-only mount, by its sandbox path and by its host path
# success: the read-only mount's content changes
# expected: contained
for path in ({{MOUNT_RO_HOST}} + "/data.txt", {{MOUNT_RO}} + "/data.txt", {{MOUNT_RO}} + "/new.txt"):
    try:
        with open(path, "a") as f:
            f.write("tampered\n")
        print("wrote", path)
    except Exception as exc:
        print(path, type(exc).__name__)
raise PermissionError("read-only held")
