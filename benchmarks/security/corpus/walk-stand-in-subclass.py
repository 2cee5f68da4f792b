# id: walk-stand-in-subclass
# category: module-walk
# technique: subclass the stand-in type() shows for a sandbox class and read its inherited private _sandbox_target (the real class)
# success: the real module-proxy class is built with members the script chose
# expected: rejected
import json


class X(type(json)):
    pass


Real = X._sandbox_target
print(Real)
