# id: env-posix-environ
# category: environment
# technique: posix.environ (bytes) and ctypes environ pointer
# success: the host's environment secret is printed
# expected: rejected
import posix

print(posix.environ)
import ctypes

environ = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
i = 0
while environ[i]:
    print(environ[i])
    i += 1
