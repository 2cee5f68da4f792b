# id: net-ipv6-and-dns
# category: network
# technique: getaddrinfo("localhost"), then ::1 and 127.0.0.1 directly, over whatever family works
# success: the listener is contacted
# expected: rejected
import socket

try:
    targets = [(f, a) for f, _, _, _, a in socket.getaddrinfo("localhost", {{PORT}}, type=socket.SOCK_STREAM)]
except OSError as exc:
    print("resolve:", exc)
    targets = [(socket.AF_INET6, ("::1", {{PORT}})), (socket.AF_INET, ("127.0.0.1", {{PORT}}))]
for family, addr in targets:
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.connect(addr)
        print("connected", addr)
    except OSError as exc:
        print(addr, exc)
