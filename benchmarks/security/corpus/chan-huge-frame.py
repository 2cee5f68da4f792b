# id: chan-huge-frame
# category: channel
# technique: announce a 4 GB frame on the channel, then stream data into it
# success: the host buffers without bound (its memory grows) or hangs
# expected: rejected
import os
import stat

for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, (0xFFFFFFF0).to_bytes(4, "big"))
            chunk = b"[" * 65536
            for _ in range(4096):
                os.write(fd, chunk)
    except OSError:
        pass
