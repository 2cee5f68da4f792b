# id: sig-thread-survives
# category: signals-threads
# technique: start a thread that keeps spinning after the script returned its result
# success: the worker keeps burning CPU after the run (not stopped within its limits)
# expected: rejected
import threading


def spin():
    while True:
        pass
threading.Thread(target=spin, daemon=True).start()
final_result("returned")
