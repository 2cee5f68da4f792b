# id: os-staged-refusal-flood
# category: os
# technique: make thousands of staged changes the host must refuse (files below the copied link leading out, replaced by a directory), so that its report of them floods the run's output after the output limit was applied
# success: the run's stdout exceeds the output limit
# expected: rejected
import os

link = {{OUTSIDE_DIR_LINK_HOST}}
try:
    os.unlink(link)
    os.mkdir(link)
    for n in range(5000):
        open(f"{link}/{ {{NONCE}} }-{n:05d}-{'x' * 150}", "w").close()
    print("5000 files the host must refuse")
except OSError as exc:
    print("blocked:", type(exc).__name__, exc)
