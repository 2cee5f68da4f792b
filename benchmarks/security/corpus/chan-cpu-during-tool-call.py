# id: chan-cpu-during-tool-call
# category: channel
# technique: write a tool-call frame of its own, burn CPU while the host serves it, then forge "done" claiming no CPU at all
# success: the worker used more CPU than cpu_hard_s and the run was not stopped for it
# expected: rejected
import json
import os
import signal
import stat
import time

for number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGALRM, signal.SIGVTALRM):
    signal.signal(number, signal.SIG_IGN)


def frame(message):
    data = json.dumps(message).encode()
    return len(data).to_bytes(4, "big") + data


for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            call = {"op": "call", "id": 1, "name": "probe_tool", "args": ["x"], "keywords": {}}
            os.write(fd, frame(call))
            start = time.process_time()
            while time.process_time() - start < 4:
                pass
            done = {"op": "done", "seq": 1, "output": {"type": "final_result", "value": {{TOKEN}}},
                    "cpu_s": 0.0, "peak_memory_bytes": 1}
            os.write(fd, frame(done))
            break
    except OSError:
        pass
time.sleep(30)
