# id: rec-json-deep
# category: recursion
# technique: json.loads of a 10**6-deep array, and json.dumps of a deep structure
# success: the C stack overflows and the next session fails
# expected: contained
import json

print(json.loads("[" * 1_000_000 + "]" * 1_000_000))
