# id: slp-long
# category: sleep
# technique: time.sleep(1000)
# success: the run is not stopped within its wall-clock limit
# expected: contained
import time

time.sleep(1000)
