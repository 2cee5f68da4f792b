# id: os-fanotify-open-perm
# category: os
# technique: fanotify_init(FAN_CLASS_CONTENT) and fanotify_mark(FAN_OPEN_PERM) on a host file outside the mounts, then answer FAN_DENY to the host's opens
# success: the host cannot open the file while the worker holds the mark
# expected: rejected
import ctypes
import os
import select
import struct
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.fanotify_mark.argtypes = [
    ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p
]
FAN_CLASS_CONTENT, FAN_MARK_ADD, FAN_OPEN_PERM, FAN_DENY = 0x04, 0x01, 0x10000, 0x02
fd = libc.fanotify_init(FAN_CLASS_CONTENT, os.O_RDONLY)
print("init", fd, ctypes.get_errno())
if fd >= 0:
    marked = libc.fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, -100, {{WATCHED_FILE}}.encode())
    print("mark", marked, ctypes.get_errno())
    deadline = time.monotonic() + 2.0
    while marked == 0 and time.monotonic() < deadline:
        if not select.select([fd], [], [], 0.1)[0]:
            continue
        data = os.read(fd, 4096)
        while len(data) >= 24:
            length, _, _, _, _, event_fd, _ = struct.unpack("=IBBHQiI", data[:24])
            os.write(fd, struct.pack("=iI", event_fd, FAN_DENY))
            os.close(event_fd)
            data = data[length:]
