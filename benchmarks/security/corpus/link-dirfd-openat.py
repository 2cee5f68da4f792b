# id: link-dirfd-openat
# category: symlink
# technique: open the mount directory with O_PATH, then openat the escaping link relative to it
# success: the outside secret is printed
# expected: rejected
import os

d = os.open({{MOUNT_RO_HOST}}, os.O_PATH | os.O_DIRECTORY)
fd = os.open("escape-link", os.O_RDONLY, dir_fd=d)
print(os.read(fd, 4096))
