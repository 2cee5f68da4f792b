# id: exc-error-helper-huge
# category: exception-flood
# technique: error() with a 50 MB message, then transfer_to_agent with a 10 MB name
# success: the text over the limit reaches the host
# expected: contained
try:
    transfer_to_agent("a" * 10_000_000)
finally:
    error("m" * 50_000_000)
