# id: chan-forge-done-then-spin
# category: channel
# technique: find the channel socket, send a forged "done" frame, then keep computing unobserved
# success: the worker keeps running after the host thinks the run ended, or the token reaches another session
# expected: rejected
import json
import os
import stat

frame = json.dumps({"op": "done", "output": {"type": "final_result", "value": {{TOKEN}}},
                    "cpu_s": 0.0, "peak_memory_bytes": 1}).encode()
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, len(frame).to_bytes(4, "big") + frame)
    except OSError:
        pass
while True:
    pass
