# id: net-socketpair-fromfd
# category: network
# technique: socket.socketpair / socket.fromfd on inherited descriptors, then connect one to the listener
# success: the listener is contacted
# expected: rejected
import socket

for fd in range(3, 40):
    try:
        s = socket.socket(fileno=fd)
        print(fd, s.family, s.type)
        s.detach()
    except OSError:
        pass
a, b = socket.socketpair()
c = socket.socket()
c.connect(("127.0.0.1", {{PORT}}))
