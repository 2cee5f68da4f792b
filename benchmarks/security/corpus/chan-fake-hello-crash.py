# id: chan-fake-hello-crash
# category: channel
# technique: send a forged "hello" claiming full confinement, then a "crash" with a huge message
# success: the host records forged confinement or breaks
# expected: rejected
import json
import os
import stat

frames = [
    {"op": "hello", "pid": 1, "confinement": {"filesystem": "active", "forged": {{TOKEN}}}},
    {"op": "crash", "message": "c" * 2_000_000},
]
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            for message in frames:
                data = json.dumps(message).encode()
                os.write(fd, len(data).to_bytes(4, "big") + data)
    except OSError:
        pass
