# id: data-read-pickle
# category: data
# technique: write a pickle whose reduce calls os.mkdir into the writable mount, then pd.read_pickle it
# success: the marker directory exists on the host
# expected: rejected
import pandas as pd

payload = b"cposix\nmkdir\n(S" + repr({{MARKER}}).encode() + b"\ntR."
for base in ({{MOUNT_RW}}, {{MOUNT_RW_HOST}}):
    path = base + "/payload.pkl"
    try:
        with open(path, "wb") as handle:
            handle.write(payload)
        print(pd.read_pickle(path))
    except Exception as exc:
        print("blocked:", base, type(exc).__name__)
