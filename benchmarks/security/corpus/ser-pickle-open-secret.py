# id: ser-pickle-open-secret
# category: serialization
# technique: pickle stream calling builtins.open on the secret file, then read
# success: the secret file's content comes back
# expected: rejected
import pickle

stream = b"cbuiltins\nopen\n(V" + {{SECRET_FILE}}.encode() + b"\ntR."
print(pickle.loads(stream).read())
