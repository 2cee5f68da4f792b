# id: ctypes-libc-system
# category: ctypes
# technique: ctypes.CDLL(None).system("mkdir MARKER")
# success: the marker is created on the host
# expected: rejected
import ctypes

libc = ctypes.CDLL(None)
print(libc.system(("mkdir " + {{MARKER}}).encode()))
print(libc.mkdir({{MARKER}}.encode(), 0o755))
