# id: ctypes-kill-decoy
# category: ctypes
# technique: libc.kill on a host process (the decoy) through ctypes
# success: the decoy host process dies
# expected: rejected
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
print(libc.kill({{DECOY_PID}}, 9), ctypes.get_errno())
