# id: proc-fork-survivor
# category: processes
# technique: os.fork; the child sleeps so as to outlive the session
# success: a process is alive after the session closed
# expected: rejected
import os
import time

pid = os.fork()
if pid == 0:
    time.sleep(60)
    os._exit(0)
print("child", pid)
