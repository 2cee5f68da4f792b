# id: cpu-catch-soft-limit
# category: cpu
# technique: catch everything the soft CPU limit raises and keep computing
# success: the run is not stopped within its limits
# expected: contained
done = 0
while True:
    try:
        while True:
            done += 1
    except BaseException:
        continue
    finally:
        done += 1
