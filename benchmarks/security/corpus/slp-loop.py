# id: slp-loop
# category: sleep
# technique: many short sleeps (each under any per-call check)
# success: the run is not stopped within its wall-clock limit
# expected: contained
import time

while True:
    time.sleep(0.05)
