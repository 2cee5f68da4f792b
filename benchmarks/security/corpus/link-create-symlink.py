# id: link-create-symlink
# category: symlink
# technique: create a new symlink in the writable mount pointing at the secret, then read it
# success: the secret is printed
# expected: rejected
# ruff: noqa: SIM115
import os

link = {{MOUNT_RW_HOST}} + "/" + {{NONCE}}
os.symlink({{SECRET_FILE}}, link)
print(open(link).read())
