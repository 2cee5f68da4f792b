# id: intro-metaclass
# category: introspection
# technique: a metaclass whose __getattribute__ hands out real class internals
# success: the metaclass exposes __subclasses__ of object
# expected: rejected
class Meta(type):
    def __getattribute__(cls, name):
        return type.__getattribute__(cls, name)
class C(metaclass=Meta):
    pass
print(C.__subclasses__)
