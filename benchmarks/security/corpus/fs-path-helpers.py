# id: fs-path-helpers
# category: filesystem
# technique: the sandbox's pathlib/os.path helpers (when the policy offers them) pointed outside the mounts
# success: the secret is read or the marker created
# expected: contained
# ruff: noqa: SIM115
try:
    import pathlib
    p = pathlib.Path({{SECRET_FILE}})
    print(p.read_text())
except Exception as exc:
    print("pathlib:", type(exc).__name__)
try:
    import os.path
    print(os.path.exists({{SECRET_FILE}}), os.path.getsize({{SECRET_FILE}}))
except Exception as exc:
    print("os.path:", type(exc).__name__)
open({{MOUNT_RW}} + "/../" + {{MARKER}}, "w")
