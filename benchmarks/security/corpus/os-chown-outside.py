# id: os-chown-outside
# category: os
# technique: os.chown on a host file outside the mounts (to its own owner: allowed to the owner, and enough to change the file's metadata)
# success: the file's owner or change time changed on the host
# expected: rejected
import os

st = os.stat({{SECRET_FILE}})
os.chown({{SECRET_FILE}}, st.st_uid, st.st_gid)
print(os.stat({{SECRET_FILE}}).st_ctime_ns - st.st_ctime_ns)
