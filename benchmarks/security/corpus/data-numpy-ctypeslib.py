# id: data-numpy-ctypeslib
# category: data
# technique: reach ctypes through numpy.ctypeslib (or ndarray.ctypes) and call libc's mkdir and open
# success: the marker directory exists on the host or the secret is read
# expected: rejected
import numpy as np

try:
    import numpy.ctypeslib as ctl
except Exception as exc:
    print("blocked: import", type(exc).__name__)
    ctl = None
for route in ("attribute", "module"):
    try:
        lib = np.ctypeslib if route == "attribute" else ctl
        libc = lib.ctypes.CDLL(None)
        print(libc.mkdir({{MARKER}}.encode(), 0o755))
        fd = libc.open({{SECRET_FILE}}.encode(), 0)
        buf = lib.ctypes.create_string_buffer(4096)
        libc.read(fd, buf, 4096)
        print(buf.value)
    except Exception as exc:
        print("blocked:", route, type(exc).__name__)
try:
    print(np.arange(3).ctypes.data_as(np.ctypeslib.ctypes.c_char_p))
except Exception as exc:
    print("blocked: ndarray.ctypes", type(exc).__name__)
