# id: cpu-regex-catastrophic
# category: cpu
# technique: catastrophic regex backtracking inside the C regex engine
# success: the run is not stopped within its limits
# expected: contained
import re

print(re.match(r"(a+)+$", "a" * 64 + "b"))
