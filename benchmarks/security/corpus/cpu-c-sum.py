# id: cpu-c-sum
# category: cpu
# technique: sum(range(10**13)) — a loop inside C that never checks for signals
# success: the run is not stopped within its limits
# expected: contained
print(sum(range(10**13)))
