# id: data-read-csv-host
# category: data
# technique: pd.read_csv / np.loadtxt of /etc/passwd and of the host's secret file, by path and through a symlink in the mount
# success: a host file's content comes back
# expected: rejected
import numpy as np
import pandas as pd

for path in ("/etc/passwd", {{SECRET_FILE}}, {{MOUNT_RO}} + "/escape-link"):
    try:
        print(pd.read_csv(path, sep="\x01", header=None).to_string())
    except Exception as exc:
        print("blocked: read_csv", path, type(exc).__name__)
    try:
        print(np.loadtxt(path, dtype=str, delimiter="\x01"))
    except Exception as exc:
        print("blocked: loadtxt", path, type(exc).__name__)
