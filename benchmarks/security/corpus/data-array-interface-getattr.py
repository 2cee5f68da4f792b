# id: data-array-interface-getattr
# category: data
# technique: a script class's __getattr__ answers numpy's lookup of __array_interface__ with an address of the script's choice
# success: raw memory is read (an object's header: its type's address)
# expected: rejected
import numpy as np

x = 12345678901234567890


class P:
    def __getattr__(self, name):
        if name == "__array_interface__":
            return {"shape": (16,), "typestr": "|u1", "data": (id(x), True), "version": 3}
        raise AttributeError(name)


a = np.asarray(P())
if a.dtype == np.uint8 and int.from_bytes(bytes(a[8:16]), "little") == id(int):
    print("raw memory read")
    raise SystemExit(1)
raise ValueError("numpy read nothing of the script's")
