# id: chan-partial-frame-stall
# category: channel
# technique: send the first bytes of a frame, then stall (a slow-loris on the host's reader)
# success: the host waits past the wall-clock limit
# expected: rejected
import os
import stat
import time

for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, (1000).to_bytes(4, "big") + b'{"op": "do')
    except OSError:
        pass
time.sleep(1000)
