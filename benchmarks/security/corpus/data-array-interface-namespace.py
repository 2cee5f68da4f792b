# id: data-array-interface-namespace
# category: data
# technique: types.SimpleNamespace(**{"__array_interface__": ...}) hands numpy an address of the script's choice; the array reads the worker's memory
# success: raw memory is read (an object's header: its type's address), then the real builtins through it
# expected: rejected
import types

import numpy as np

x = 12345678901234567890
iface = {"shape": (16,), "typestr": "|u1", "data": (id(x), True), "version": 3}
a = np.asarray(types.SimpleNamespace(**{"__array_interface__": iface}))
if int.from_bytes(bytes(a[8:16]), "little") == id(int):
    print("raw memory read")
