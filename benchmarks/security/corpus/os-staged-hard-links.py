# id: os-staged-hard-links
# category: os
# technique: one file within the budget and hard links to it in the staged copy, which take no space there but are one full copy each on the host
# success: the writable mount holds more than its budget
# expected: rejected
import os

try:
    os.chdir({{MOUNT_RW_HOST}})
    os.mkdir({{NONCE}})
    os.chdir({{NONCE}})
    with open("first", "wb") as f:
        f.write(b"x" * 400_000)
    for n in range(4):
        os.link("first", f"link-{n}")
    print("one file, four hard links")
except OSError as exc:
    print("blocked:", type(exc).__name__, exc)
