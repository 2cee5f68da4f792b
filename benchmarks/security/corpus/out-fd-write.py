# id: out-fd-write
# category: output-flood
# technique: os.write to descriptors 1 and 2 and sys.stdout.write, bypassing print's limit
# success: more output than the limit reaches the host
# expected: rejected
import os
import sys

os.write(1, b"x" * 10_000_000)
os.write(2, b"x" * 10_000_000)
sys.stdout.write("x" * 10_000_000)
