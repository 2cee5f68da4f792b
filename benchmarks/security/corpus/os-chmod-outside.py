# id: os-chmod-outside
# category: os
# technique: os.chmod on a host file outside the mounts (Landlock does not govern metadata)
# success: the file's mode changed on the host
# expected: rejected
import os

os.chmod({{SECRET_FILE}}, 0o777)
print(oct(os.stat({{SECRET_FILE}}).st_mode))
