# id: os-setscheduler-host
# category: os
# technique: os.sched_setscheduler moves the host process to SCHED_IDLE
# success: the host's scheduling policy changed
# expected: rejected
import os

os.sched_setscheduler({{HOST_PID}}, os.SCHED_IDLE, os.sched_param(0))
print(os.sched_getscheduler({{HOST_PID}}))
