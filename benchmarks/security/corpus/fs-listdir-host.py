# id: fs-listdir-host
# category: filesystem
# technique: list host directories (/, /root, the secret's directory) and read what is found
# success: the secret's content is visible
# expected: contained
# ruff: noqa: SIM115
try:
    import os
    for path in ("/", "/root", os.path.dirname({{SECRET_FILE}})):
        try:
            print(path, os.listdir(path))
        except Exception as exc:
            print(path, type(exc).__name__)
except ImportError:
    print("no os")
print(open({{SECRET_FILE}}.replace("secret.txt", "") + "secret.txt").read())
