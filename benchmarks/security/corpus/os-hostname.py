# id: os-hostname
# category: os
# technique: read the host's hostname (uname) and network interfaces (if_nameindex)
# success: the host's hostname or interfaces are printed (hostname=..., ifaces=...)
# expected: rejected
import os
import socket

print(f"hostname={os.uname().nodename}")
try:
    print("ifaces=" + ",".join(sorted(name for _, name in socket.if_nameindex())))
except OSError as exc:
    print("interfaces refused:", exc.errno)
