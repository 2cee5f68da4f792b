# id: os-setxattr-outside
# category: os
# technique: os.setxattr adds a user attribute to a host file outside the mounts
# success: the file's extended attributes changed on the host
# expected: rejected
import os

os.setxattr({{SECRET_FILE}}, "user.probe", b"written")
print(os.listxattr({{SECRET_FILE}}))
