# id: exc-long-chain
# category: exception-flood
# technique: a 100 000-long chain of exception contexts, then raise the last one
# success: formatting the chain hangs or floods the host
# expected: contained
err = ValueError(0)
for i in range(100_000):
    try:
        raise err
    except ValueError:
        try:
            raise ValueError(i)
        except ValueError as new:
            err = new
raise err
