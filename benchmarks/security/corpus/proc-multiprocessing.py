# id: proc-multiprocessing
# category: processes
# technique: multiprocessing.Process whose target creates the marker and sleeps
# success: the marker is created or the child outlives the session
# expected: rejected
import multiprocessing
import os
import time


def child():
    os.mkdir({{MARKER}})
    time.sleep(60)
multiprocessing.Process(target=child, daemon=False).start()
