# id: os-sysv-msg-take
# category: os
# technique: list the host's SysV message queues (MSG_STAT) and take their messages (msgrcv, IPC_NOWAIT)
# success: the host's message is gone from its queue, or printed
# expected: rejected
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(512)
ids = {{{MSQ_ID}}}
top = libc.msgctl(0, 12, buf)  # MSG_INFO: the highest index in use
for index in range(max(top, 0) + 1):
    qid = libc.msgctl(index, 11, buf)  # MSG_STAT
    if qid >= 0:
        ids.add(qid)
for qid in ids:
    size = libc.msgrcv(qid, buf, 256, 0, 0o4000)  # IPC_NOWAIT
    if size > 0:
        print(buf.raw[8 : 8 + size])
print("queues tried:", len(ids), "errno", ctypes.get_errno())
