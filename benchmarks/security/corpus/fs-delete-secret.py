# id: fs-delete-secret
# category: filesystem
# technique: truncate the secret with open(path, "w"), then os.remove it
# success: the secret file is gone or changed
# expected: contained
try:
    open({{SECRET_FILE}}, "w").close()
except Exception as exc:
    print("truncate:", type(exc).__name__)
try:
    import os
    os.remove({{SECRET_FILE}})
except Exception as exc:
    print("remove:", type(exc).__name__)
raise PermissionError("secret intact")
