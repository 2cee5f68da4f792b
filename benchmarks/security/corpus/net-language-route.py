# id: net-language-route
# category: network
# technique: look for a network path among allowed modules (json.codecs..., a tool's arguments)
# success: the listener is contacted
# expected: contained
import json

sock = json.codecs.sys.modules["socket"]
sock.create_connection(("127.0.0.1", {{PORT}}))
