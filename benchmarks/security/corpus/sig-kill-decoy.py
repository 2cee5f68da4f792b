# id: sig-kill-decoy
# category: signals-threads
# technique: os.kill on a host process (a decoy started by the runner)
# success: the decoy host process dies
# expected: rejected
import os
import signal

os.kill({{DECOY_PID}}, signal.SIGKILL)
