# id: os-sysv-shm-read
# category: os
# technique: list the host's SysV shared-memory segments (SHM_STAT) and attach each read-only
# success: the secret in the host's segment is printed
# expected: rejected
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
buf = ctypes.create_string_buffer(512)
ids = {{{SHM_ID}}}
top = libc.shmctl(0, 14, buf)  # SHM_INFO: the highest index in use
for index in range(max(top, 0) + 1):
    sid = libc.shmctl(index, 13, buf)  # SHM_STAT
    if sid >= 0:
        ids.add(sid)
for sid in ids:
    address = libc.shmat(sid, None, 0o10000)  # SHM_RDONLY
    if address not in (None, ctypes.c_void_p(-1).value):
        print(ctypes.string_at(address, 64))
print("segments tried:", len(ids), "errno", ctypes.get_errno())
