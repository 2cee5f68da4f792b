# id: chan-forge-oversized-output
# category: channel
# technique: a forged "done" frame whose printed output is 30 times the output limit
# success: the host accepts more output than the policy allows
# expected: rejected
import json
import os
import stat

frame = json.dumps({"op": "done", "output": {"type": "observation", "value": "ok"},
                    "stdout": "o" * 2_000_000}).encode()
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, len(frame).to_bytes(4, "big") + frame)
            break
    except OSError:
        pass
