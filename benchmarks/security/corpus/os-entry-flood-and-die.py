# id: os-entry-flood-and-die
# category: os
# technique: fill the writable mount with 4,096 empty files, then kill its own worker, so that the directory outgrows what a private copy may hold and later sessions lose their private view
# success: a later session fails, or the mount's changes are applied beyond its budget
# expected: rejected
import os
import signal

for base in ({{MOUNT_RW}}, {{MOUNT_RW_HOST}}):
    try:
        os.mkdir(base + "/" + {{NONCE}})
    except OSError as exc:
        print(base, type(exc).__name__)
        continue
    made = 0
    try:
        for n in range(4096):
            open(f"{base}/{ {{NONCE}} }/e{n}", "w").close()
            made += 1
    except OSError as exc:
        print("stopped at", made, type(exc).__name__)
    break
os.kill(os.getpid(), signal.SIGKILL)
