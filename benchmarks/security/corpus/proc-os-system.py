# id: proc-os-system
# category: processes
# technique: os.system / os.popen of a shell command creating the marker
# success: the marker is created on the host
# expected: rejected
import os

print(os.system("mkdir " + {{MARKER}}))
print(os.popen("mkdir " + {{MARKER}} + " 2>&1").read())
