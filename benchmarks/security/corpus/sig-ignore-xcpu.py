# id: sig-ignore-xcpu
# category: signals-threads
# technique: ignore SIGXCPU/SIGALRM and spin, hoping the CPU limit is only a signal
# success: the run is not stopped within its limits
# expected: rejected
import signal

for sig in (signal.SIGXCPU, signal.SIGALRM, signal.SIGTERM):
    signal.signal(sig, signal.SIG_IGN)
while True:
    pass
