# id: fs-dotdot-from-mount
# category: filesystem
# technique: .. components from the writable mount towards the secret and the outside directory
# success: the secret is read or a file appears outside the mounts
# expected: contained
attempts = [
    ({{MOUNT_RW}} + "/../.." + {{SECRET_FILE}}, "r"),
    ({{MOUNT_RW}} + "/../../" + {{OUTSIDE_DIR}} + "/" + {{NONCE}}, "w"),
    ({{MOUNT_RW_HOST}} + "/../outside/" + {{NONCE}}, "w"),
    ({{MOUNT_RW_HOST}} + "/../cases/../shared-secret.txt", "r"),
]
for path, mode in attempts:
    try:
        with open(path, mode) as f:
            print(f.read() if mode == "r" else f.write("x"))
    except Exception as exc:
        print(path, type(exc).__name__)
raise PermissionError("no way up")
