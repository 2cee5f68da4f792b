# id: proc-execv
# category: processes
# technique: os.execv replaces the worker with a shell that creates the marker
# success: the marker is created on the host
# expected: rejected
import os

os.execv("/bin/sh", ["sh", "-c", "mkdir " + {{MARKER}}])
