# id: sig-pidfd-decoy
# category: signals-threads
# technique: pidfd_open + pidfd_send_signal on the decoy, then tgkill through ctypes
# success: the decoy host process dies
# expected: rejected
import os
import signal

try:
    fd = os.pidfd_open({{DECOY_PID}})
    signal.pidfd_send_signal(fd, signal.SIGKILL)
except OSError as exc:
    print("pidfd:", exc)
    import ctypes
    print(ctypes.CDLL(None).syscall(234, {{DECOY_PID}}, {{DECOY_PID}}, 9))
