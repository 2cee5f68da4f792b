# id: ctypes-raw-open-secret
# category: ctypes
# technique: libc open/read through ctypes, bypassing Python's file layer
# success: the secret file's content is printed
# expected: rejected
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
fd = libc.open({{SECRET_FILE}}.encode(), 0)
buf = ctypes.create_string_buffer(4096)
n = libc.read(fd, buf, 4096)
print(fd, n, ctypes.get_errno(), buf.raw[: max(n, 0)])
