# id: fs-read-secret
# category: filesystem
# technique: open() on a host file outside every mount
# success: the secret file's content is printed
# expected: contained
# ruff: noqa: SIM115
print(open({{SECRET_FILE}}).read())
