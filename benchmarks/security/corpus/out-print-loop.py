# id: out-print-loop
# category: output-flood
# technique: print forever
# success: more output than the limit reaches the host, or the run is not stopped
# expected: contained
line = "x" * 1000
while True:
    print(line)
