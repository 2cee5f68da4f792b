# id: ctypes-syscall-direct
# category: ctypes
# technique: libc.syscall with raw numbers (socket=41, mkdir=83 on x86_64) to dodge wrappers
# success: the marker is created or the listener contacted
# expected: rejected
import ctypes
import platform

libc = ctypes.CDLL(None, use_errno=True)
if platform.machine() == "x86_64":
    print(libc.syscall(83, {{MARKER}}.encode(), 0o755), ctypes.get_errno())
    print(libc.syscall(41, 2, 1, 0), ctypes.get_errno())
else:
    print(libc.syscall(34, -100, {{MARKER}}.encode(), 0o755), ctypes.get_errno())
