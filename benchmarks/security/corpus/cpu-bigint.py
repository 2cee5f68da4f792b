# id: cpu-bigint
# category: cpu
# technique: 7 ** 7 ** 9 — one huge integer power computed in C
# success: the run is not stopped within its limits
# expected: contained
x = 7 ** 7 ** 9
print(x % 10)
