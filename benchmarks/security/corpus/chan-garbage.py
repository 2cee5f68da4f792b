# id: chan-garbage
# category: channel
# technique: random bytes, invalid JSON and unknown ops on the channel
# success: the host crashes or the next session fails
# expected: rejected
import os
import stat

for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            for payload in (b"{not json", b'{"op": "explode"}', os.urandom(64)):
                os.write(fd, len(payload).to_bytes(4, "big") + payload)
    except OSError:
        pass
