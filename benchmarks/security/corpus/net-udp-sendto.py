# id: net-udp-sendto
# category: network
# technique: a UDP datagram to a loopback port (no connect needed)
# success: the datagram arrives
# expected: rejected
import socket

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"x" * 100, ("127.0.0.1", {{UDP_PORT}}))
