# id: data-as-strided
# category: data
# technique: numpy.lib.stride_tricks.as_strided (or strides assignment) builds an out-of-bounds view to read and overwrite the worker's memory
# success: the host is affected (a later session fails) or the secret is read
# expected: rejected
import numpy as np

views = []
try:
    views.append(np.lib.stride_tricks.as_strided(np.zeros(1, dtype=np.uint8), shape=(1 << 24,), strides=(1,)))
except Exception as exc:
    print("blocked: as_strided", type(exc).__name__)
try:
    a = np.zeros(1, dtype=np.uint8)
    a.strides = (1 << 20,)
    views.append(a)
except Exception as exc:
    print("blocked: strides", type(exc).__name__)
try:
    views.append(np.ndarray(shape=(1 << 24,), dtype=np.uint8, buffer=bytearray(8)))
except Exception as exc:
    print("blocked: ndarray", type(exc).__name__)
for view in views:
    text = bytes(view[: 1 << 16]).decode("latin-1")
    print("SHARED" in text)
    view[:] = 0xFF  # overwrite whatever lies behind
