# id: slp-catch
# category: sleep
# technique: sleep inside try/except BaseException/finally, sleeping again when interrupted
# success: the run is not stopped within its wall-clock limit
# expected: contained
import time

while True:
    try:
        time.sleep(1000)
    except BaseException:
        pass
    finally:
        time.sleep(1000)
