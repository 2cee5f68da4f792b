# id: net-tcp-connect
# category: network
# technique: socket.create_connection to a loopback listener of the host
# success: the listener is contacted
# expected: rejected
import socket

s = socket.create_connection(("127.0.0.1", {{PORT}}), timeout=2)
s.sendall(b"hello from the sandbox")
