# id: fs-write-marker
# category: filesystem
# technique: open(path, "w") outside the writable mount, then os.makedirs as a second try
# success: the marker is created on the host
# expected: rejected
# ruff: noqa: SIM115
try:
    open({{MARKER}}, "w").write("x")
except Exception as exc:
    print("open:", type(exc).__name__)
    import os
    os.makedirs({{MARKER}})
