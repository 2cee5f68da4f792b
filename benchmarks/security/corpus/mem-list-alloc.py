# id: mem-list-alloc
# category: memory
# technique: [0] * 10**10 — a single 80 GB allocation
# success: the worker takes more memory than its limit, or the host's memory grows
# expected: contained
x = [0] * 10**10
