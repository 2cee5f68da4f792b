# id: slp-select
# category: sleep
# technique: select.select and threading.Event().wait — blocking outside time.sleep
# success: the run is not stopped within its wall-clock limit
# expected: rejected
import select

select.select([], [], [], 1000)
