# id: link-hardlink
# category: symlink
# technique: hard-link the secret into the writable mount (no symlink for realpath to see)
# success: the secret is printed through the link
# expected: rejected
# ruff: noqa: SIM115
import os

link = {{MOUNT_RW_HOST}} + "/" + {{NONCE}}
os.link({{SECRET_FILE}}, link)
print(open(link).read())
