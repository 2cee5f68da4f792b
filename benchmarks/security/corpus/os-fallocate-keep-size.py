# id: os-fallocate-keep-size
# category: os
# technique: fallocate(FALLOC_FL_KEEP_SIZE) reserves 200 MiB of blocks under the writable mount while st_size stays 0, so a budget that counts lengths sees nothing
# success: the writable mount holds more than its budget on the host's disk
# expected: rejected
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
for base in ({{MOUNT_RW}}, {{MOUNT_RW_HOST}}):
    try:
        fd = os.open(base + "/" + {{NONCE}} + "-reserved", os.O_WRONLY | os.O_CREAT, 0o644)
    except OSError as exc:
        print(base, type(exc).__name__)
        continue
    for _ in range(50):
        got = libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(4 << 20))
    print(base, got, os.strerror(ctypes.get_errno()), os.fstat(fd).st_blocks * 512)
    os.close(fd)
