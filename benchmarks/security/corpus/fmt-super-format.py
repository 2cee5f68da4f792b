# id: fmt-super-format
# category: format-string
# technique: a str subclass reaching the native format through super()
# success: the formatted text shows the host environment
# expected: rejected
import dataclasses


class S(str):
    def format(self, *args):
        return super().format(*args)
print(S("{0.__globals__[sys].modules[os].environ}").format(dataclasses.fields))
print(super(S, S("{0.__globals__[sys].modules[os].environ}")).format(dataclasses.fields))
