# id: chan-tool-call-flood
# category: channel
# technique: forge "call" frames for the host tool directly, far beyond the per-run tool-call limit
# success: the host serves more tool calls than the policy allows
# expected: rejected
import json
import os
import socket
import stat

for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            break
    except OSError:
        pass
sock = socket.socket(fileno=os.dup(fd))
served = 0
for call_id in range(1, 101):
    frame = json.dumps({"op": "call", "id": call_id, "name": "probe_tool", "args": [], "keywords": {"value": {{TOKEN}}}}).encode()
    sock.sendall(len(frame).to_bytes(4, "big") + frame)
    size = int.from_bytes(sock.recv(4, socket.MSG_WAITALL), "big")
    reply = sock.recv(size, socket.MSG_WAITALL)
    served += b'"ok"' in reply
print("served", served)
