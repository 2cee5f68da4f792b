# id: link-rename-out
# category: symlink
# technique: create a file in the writable mount, then rename it into the outside directory
# success: a file appears in the outside directory
# expected: rejected
import os

src = {{MOUNT_RW_HOST}} + "/" + {{NONCE}}
with open(src, "w") as f:
    f.write("x")
os.rename(src, {{OUTSIDE_DIR}} + "/" + {{NONCE}})
