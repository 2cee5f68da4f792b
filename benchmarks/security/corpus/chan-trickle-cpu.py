# id: chan-trickle-cpu
# category: channel
# technique: trickle a frame to the host one byte a millisecond, so the channel is never idle, while burning CPU between the bytes
# success: the worker used more CPU than cpu_hard_s and the run was not stopped for it
# expected: rejected
import os
import signal
import stat
import time

for number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGALRM, signal.SIGVTALRM):
    signal.signal(number, signal.SIG_IGN)
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            for byte in (1 << 20).to_bytes(4, "big") + b"{" * 100_000:
                os.write(fd, bytes([byte]))
                start = time.process_time()
                while time.process_time() - start < 0.001:
                    pass
    except OSError:
        pass
