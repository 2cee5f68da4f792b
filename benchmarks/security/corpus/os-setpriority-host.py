# id: os-setpriority-host
# category: os
# technique: os.setpriority(PRIO_PROCESS, host pid, 7) renices the host process
# success: the host's nice value changed
# expected: rejected
import os

os.setpriority(os.PRIO_PROCESS, {{HOST_PID}}, 7)
print(os.getpriority(os.PRIO_PROCESS, {{HOST_PID}}))
