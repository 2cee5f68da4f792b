# id: sys-stream-fileno
# category: output-flood
# technique: write around the captured output through sys.stdout's file descriptor
# success: bytes reach the worker's real stdout or the channel
# expected: contained
import sys

sys.stdout.write("captured\n")
fd = sys.stdout.fileno()
print("GOT fd", fd)
