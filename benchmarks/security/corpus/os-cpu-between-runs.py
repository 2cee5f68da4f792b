# id: os-cpu-between-runs
# category: os
# technique: arm a timer whose signal handler burns CPU, and return: the handler runs while the worker waits for the next run, when no run is watched
# success: the worker keeps computing after its run ended
# expected: rejected
import signal


def burn(*_):
    total = 0
    for i in range(2_000_000):
        total += i


signal.signal(signal.SIGALRM, burn)
signal.setitimer(signal.ITIMER_REAL, 0.02, 0.02)
