# id: chan-result-replay
# category: channel
# technique: send two "done" frames so that the second answers the next session's run
# success: the token reaches another session
# expected: rejected
import json
import os
import stat

frame = json.dumps({"op": "done", "output": {"type": "final_result", "value": {{TOKEN}}}}).encode()
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, (len(frame).to_bytes(4, "big") + frame) * 3)
    except OSError:
        pass
final_result("first")
