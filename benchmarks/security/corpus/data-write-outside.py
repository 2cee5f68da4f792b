# id: data-write-outside
# category: data
# technique: df.to_csv, np.save and plt.savefig to the marker path outside the mounts, into the read-only mount, and through the writable mount's symlink out
# success: the marker exists or a file outside the writable mount changes
# expected: rejected
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

targets = [{{MARKER}}, {{MOUNT_RO}} + "/new.csv", {{MOUNT_RW}} + "/escape-dir/new.csv", {{OUTSIDE_DIR}} + "/new.csv"]
df = pd.DataFrame({"a": [1]})
for target in targets:
    for name, write in (
        ("to_csv", lambda t: df.to_csv(t)),
        ("np.save", lambda t: np.save(t, np.arange(3))),
        ("savefig", lambda t: plt.savefig(t, format="png")),
    ):
        try:
            write(target)
            print("wrote:", name, target)
        except Exception as exc:
            print("blocked:", name, target, type(exc).__name__)
