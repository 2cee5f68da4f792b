# id: cpu-math-comb
# category: cpu
# technique: math.comb and sorted() of a huge list — long C calls
# success: the run is not stopped within its limits
# expected: contained
import math

print(math.comb(4_000_000, 2_000_000) % 7)
