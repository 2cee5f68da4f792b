# id: chan-write-inherited-fds
# category: channel
# technique: write a forged "done" frame to every descriptor from 3 to 20
# success: a forged result carrying the token reaches another session, or the sandbox breaks
# expected: rejected
import json
import os

frame = json.dumps({"op": "done", "output": {"type": "final_result", "value": {{TOKEN}}}}).encode()
for fd in range(3, 21):
    try:
        os.write(fd, len(frame).to_bytes(4, "big") + frame)
        print("wrote", fd)
    except OSError:
        pass
