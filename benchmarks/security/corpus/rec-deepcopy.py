# id: rec-deepcopy
# category: recursion
# technique: copy.deepcopy of a 10**5-deep nested dict
# success: the C stack overflows and the next session fails
# expected: contained
import copy

d = {}
for _ in range(100_000):
    d = {"k": d}
copy.deepcopy(d)
