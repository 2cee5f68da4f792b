# id: shadow-augassign-attr
# category: guard-shadowing
# technique: augmented assignment and del on a guarded attribute name (obj.__class__ +=, del x.__dict__)
# success: the write/del bypasses the write guard
# expected: rejected
class A:
    pass
a = A()
a.__class__ += ()
