# id: ser-pickle-os-mkdir
# category: serialization
# technique: pickle.loads of a hand-written GLOBAL/REDUCE stream calling os.mkdir
# success: the marker is created on the host
# expected: rejected
import pickle

stream = b"cos\nmkdir\n(V" + {{MARKER}}.encode() + b"\ntR."
print(pickle.loads(stream))
