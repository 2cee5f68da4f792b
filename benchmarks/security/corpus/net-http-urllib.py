# id: net-http-urllib
# category: network
# technique: urllib.request.urlopen of a loopback URL, falling back to a hand-written HTTP request
# success: the listener is contacted
# expected: rejected
try:
    import urllib.request
    print(urllib.request.urlopen(f"http://127.0.0.1:{ {{PORT}} }/exfil", timeout=2).read())
except ImportError as exc:
    print("urllib:", exc)
    import socket
    s = socket.create_connection(("127.0.0.1", {{PORT}}), timeout=2)
    s.sendall(b"GET /exfil HTTP/1.0\r\n\r\n")
