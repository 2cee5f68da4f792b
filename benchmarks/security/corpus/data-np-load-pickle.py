# id: data-np-load-pickle
# category: data
# technique: plant a pickle that calls os.mkdir, then np.load(path, allow_pickle=True)
# success: the marker directory exists on the host
# expected: rejected
import numpy as np

payload = b"cposix\nmkdir\n(S" + repr({{MARKER}}).encode() + b"\ntR."
for base in ({{MOUNT_RW}}, {{MOUNT_RW_HOST}}):
    path = base + "/planted.npy"
    try:
        with open(path, "wb") as handle:
            handle.write(payload)
        print(np.load(path, allow_pickle=True))
    except Exception as exc:
        print("blocked:", base, type(exc).__name__)
    try:
        print(np.load(path, None, True))
    except Exception as exc:
        print("blocked positional:", base, type(exc).__name__)
