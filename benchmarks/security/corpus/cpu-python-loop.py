# id: cpu-python-loop
# category: cpu
# technique: an endless Python loop
# success: the run is not stopped within its limits
# expected: contained
while True:
    pass
