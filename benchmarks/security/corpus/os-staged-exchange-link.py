# id: os-staged-exchange-link
# category: os
# technique: renameat2(RENAME_EXCHANGE) the link leading out of the writable mount with a directory of files, so that the host applies files where its link is
# success: a file appears in the directory the host's link leads to
# expected: rejected
import ctypes
import os
import platform

libc = ctypes.CDLL(None, use_errno=True)
base, link = {{MOUNT_RW_HOST}}, {{OUTSIDE_DIR_LINK_HOST}}
mine = base + "/" + {{NONCE}}
try:
    os.mkdir(mine)
    with open(mine + "/planted.txt", "w") as f:
        f.write({{TOKEN}})
    at_fdcwd, rename_exchange = -100, 2
    renameat2 = 316 if platform.machine() == "x86_64" else 276
    result = libc.syscall(renameat2, at_fdcwd, mine.encode(), at_fdcwd, link.encode(), rename_exchange)
    print("exchange:", result, os.strerror(ctypes.get_errno()))
except OSError as exc:
    print("blocked:", type(exc).__name__, exc)
