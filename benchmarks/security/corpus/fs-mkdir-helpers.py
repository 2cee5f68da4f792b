# id: fs-mkdir-helpers
# category: filesystem
# technique: os.makedirs with absolute host paths, "~" and relative paths; open(..., "x") likewise
# success: the marker is created on the host
# expected: contained
for path in ({{MARKER}}, "~/" + {{NONCE}}, "../../" + {{NONCE}}):
    try:
        open(path, "x").close()
        print("made", path)
    except Exception as exc:
        print(path, type(exc).__name__)
    try:
        import os
        os.makedirs(path)
        print("made", path)
    except Exception as exc:
        print(path, type(exc).__name__)
raise PermissionError("nothing made")
