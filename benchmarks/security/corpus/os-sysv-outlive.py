# id: os-sysv-outlive
# category: os
# technique: create a 768 MB SysV segment (beyond the address-space limit), a message queue and a semaphore set that outlive the session
# success: an object with the case's key is alive in the host's IPC namespace afterwards
# expected: rejected
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
made = [
    libc.shmget({{IPC_KEY}}, 768 * 1024 * 1024, 0o1000 | 0o600),
    libc.msgget({{IPC_KEY}}, 0o1000 | 0o600),
    libc.semget({{IPC_KEY}}, 4, 0o1000 | 0o600),
]
print("made", made, "errno", ctypes.get_errno())
