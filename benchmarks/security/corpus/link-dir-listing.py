# id: link-dir-listing
# category: symlink
# technique: list and write through the escaping directory links with the sandbox's helpers and open
# success: the outside directory is listed or written
# expected: contained
# ruff: noqa: SIM115
for d in ({{MOUNT_RO}} + "/escape-dir", {{OUTSIDE_DIR_LINK}}):
    try:
        import os
        print(os.listdir(d))
    except Exception as exc:
        print("listdir:", type(exc).__name__)
    try:
        open(d + "/" + {{NONCE}}, "x").write("x")
    except Exception as exc:
        print("open:", type(exc).__name__)
raise PermissionError("links refused")
