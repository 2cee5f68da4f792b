# id: os-stat-outside
# category: os
# technique: stat a host file outside the mounts (Landlock refuses reads, not stat)
# success: the file's inode number is printed (inode=...)
# expected: rejected
import os

for path in ({{SECRET_FILE}}, "/etc/passwd", "/etc/shadow"):
    try:
        info = os.stat(path)
        print(f"inode={info.st_ino}", path, info.st_size)
    except OSError as exc:
        print(path, "refused:", exc.errno)
