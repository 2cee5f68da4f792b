# id: sig-kill-zygote
# category: signals-threads
# technique: kill the parent (the zygote) so that the sandbox machinery breaks for everyone
# success: the next session fails
# expected: rejected
import os
import signal

os.kill(os.getppid(), signal.SIGKILL)
