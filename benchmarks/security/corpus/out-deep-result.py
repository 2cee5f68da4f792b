# id: out-deep-result
# category: output-flood
# technique: a result nested 100 000 levels deep
# success: the host crashes decoding it or the next session fails
# expected: contained
value = []
for _ in range(100_000):
    value = [value]
final_result(value)
