# id: intro-type-three-args
# category: introspection
# technique: type(name, bases, dict) to build a class whose body bypasses the transformer
# success: a class built outside the compiler reads forbidden attributes
# expected: contained
def grab(self):
    return self
K = type("K", (), {"grab": grab, "__getattr__": lambda self, n: n})
k = K()
print(k.grab())
