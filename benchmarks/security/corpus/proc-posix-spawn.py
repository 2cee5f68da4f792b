# id: proc-posix-spawn
# category: processes
# technique: os.posix_spawn and os.spawnv (vfork-style paths)
# success: the marker is created on the host
# expected: rejected
import os

try:
    os.posix_spawn("/bin/mkdir", ["mkdir", {{MARKER}}], {})
except OSError as exc:
    print("posix_spawn:", exc)
    os.spawnv(os.P_WAIT, "/bin/mkdir", ["mkdir", {{MARKER}}])
