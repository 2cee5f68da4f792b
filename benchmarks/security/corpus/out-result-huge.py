# id: out-result-huge
# category: output-flood
# technique: a 20 MB final result
# success: a result over the limit reaches the host
# expected: contained
final_result("z" * 20_000_000)
