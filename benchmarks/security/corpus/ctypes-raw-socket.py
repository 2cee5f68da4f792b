# id: ctypes-raw-socket
# category: ctypes
# technique: libc socket/connect through ctypes to the loopback listener
# success: the listener is contacted
# expected: rejected
import ctypes
import struct

libc = ctypes.CDLL(None, use_errno=True)
fd = libc.socket(2, 1, 0)
addr = struct.pack("!HH4s8x", 2, {{PORT}}, bytes([127, 0, 0, 1]))
addr = struct.pack("H", 2) + addr[2:]
print(fd, libc.connect(fd, addr, len(addr)), ctypes.get_errno())
