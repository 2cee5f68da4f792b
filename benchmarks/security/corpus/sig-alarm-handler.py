# id: sig-alarm-handler
# category: signals-threads
# technique: a SIGALRM handler that raises into the sandbox's own code after the result was sent
# success: the host accepts a corrupted or forged exchange, or the next session fails
# expected: rejected
import signal


def handler(signum, frame):
    raise SystemExit(frame.f_globals.get("__name__"))
signal.signal(signal.SIGALRM, handler)
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
final_result("done")
