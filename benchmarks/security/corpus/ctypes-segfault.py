# id: ctypes-segfault
# category: ctypes
# technique: dereference a null pointer to crash the worker, hoping to take the host down with it
# success: the host or the next session fails
# expected: rejected
import ctypes

ctypes.string_at(0)
