# id: os-utime-outside
# category: os
# technique: os.utime on a host file outside the mounts backdates it
# success: the file's times changed on the host
# expected: rejected
import os

os.utime({{SECRET_FILE}}, (0, 0))
print(os.stat({{SECRET_FILE}}).st_mtime)
