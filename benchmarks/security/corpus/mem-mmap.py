# id: mem-mmap
# category: memory
# technique: an anonymous mmap of 64 GB, touched page by page
# success: the worker takes more memory than its limit
# expected: rejected
import mmap

m = mmap.mmap(-1, 64 << 30)
for i in range(0, 64 << 30, 4096):
    m[i] = 1
