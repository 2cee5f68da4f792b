# id: proc-double-fork-setsid
# category: processes
# technique: fork, setsid, fork again and let the middle process exit (a daemon)
# success: an orphaned process is alive after the session closed
# expected: rejected
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
time.sleep(0.2)
