# id: out-print-huge
# category: output-flood
# technique: one print of 50 MB
# success: more output than the limit reaches the host, or the host's memory grows
# expected: contained
print("y" * 50_000_000)
