# id: mem-catch-retry
# category: memory
# technique: catch MemoryError, drop half, allocate again forever
# success: the run is not stopped within its limits
# expected: contained
keep = []
while True:
    try:
        keep.append(bytearray(50_000_000))
    except MemoryError:
        keep = keep[: len(keep) // 2]
