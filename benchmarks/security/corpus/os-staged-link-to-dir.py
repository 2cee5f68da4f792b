# id: os-staged-link-to-dir
# category: os
# technique: in the staged copy, replace the link leading out of the writable mount with a real directory holding files, so that the host applies them through its own link
# success: a file appears in, or is overwritten in, the directory the host's link leads to
# expected: rejected
import os

link = {{OUTSIDE_DIR_LINK_HOST}}
try:
    os.unlink(link)
    os.makedirs(link + "/sub")
    for name in ("planted-" + {{NONCE}}, "sub/deeper-" + {{NONCE}}):
        with open(link + "/" + name, "w") as f:
            f.write({{TOKEN}})
    print("replaced the link with a directory")
except OSError as exc:
    print("blocked:", type(exc).__name__, exc)
