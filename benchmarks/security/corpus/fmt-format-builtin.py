# id: fmt-format-builtin
# category: format-string
# technique: the format() builtin and a class whose __format__ formats a walking template
# success: the formatted text shows the host environment
# expected: rejected
import dataclasses


class W:
    def __format__(self, spec):
        return ("{0." + spec + "}").format(dataclasses.fields)
print(format(W(), "__globals__[sys].modules[os].environ"))
