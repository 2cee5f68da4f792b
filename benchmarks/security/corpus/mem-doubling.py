# id: mem-doubling
# category: memory
# technique: a bytes object doubled until allocation fails
# success: the worker takes more memory than its limit
# expected: contained
b = b"x"
while True:
    b += b
