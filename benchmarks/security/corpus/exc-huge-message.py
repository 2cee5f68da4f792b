# id: exc-huge-message
# category: exception-flood
# technique: raise an exception whose message is 50 MB
# success: the error text over the limit reaches the host, or the host's memory grows
# expected: contained
raise ValueError("e" * 50_000_000)
