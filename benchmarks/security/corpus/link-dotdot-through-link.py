# id: link-dotdot-through-link
# category: symlink
# technique: the escaping directory link followed by .. (resolved by the kernel after the link)
# success: the shared secret next to the outside directory is printed
# expected: contained
# ruff: noqa: SIM115
for path in ({{MOUNT_RO}} + "/escape-dir/../shared-secret.txt", {{MOUNT_RO_HOST}} + "/escape-dir/../shared-secret.txt"):
    try:
        print(open(path).read())
    except Exception as exc:
        print(path, type(exc).__name__)
raise PermissionError("no secret")
