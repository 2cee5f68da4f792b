# id: os-staged-forged-done-race
# category: os
# technique: tell the host the run is done (a forged frame on the channel), then keep swapping a directory and the link leading out while the host applies the staged copy
# success: the host writes or removes outside the writable mount, or the worker keeps running after the run
# expected: rejected
import json
import os
import stat

frame = json.dumps({"op": "done", "seq": 1, "output": {"type": "final_result", "value": "done"}})
data = frame.encode()
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, len(data).to_bytes(4, "big") + data)
    except OSError:
        pass
base, link = {{MOUNT_RW_HOST}}, {{OUTSIDE_DIR_LINK_HOST}}
mine = base + "/" + {{NONCE}}
try:
    os.unlink(link)
except OSError:
    pass
while True:
    try:
        os.makedirs(link, exist_ok=True)
        with open(link + "/planted.txt", "w") as f:
            f.write({{TOKEN}})
        os.rename(link, mine)
        os.unlink(mine + "/planted.txt")
        os.rmdir(mine)
    except OSError:
        pass
