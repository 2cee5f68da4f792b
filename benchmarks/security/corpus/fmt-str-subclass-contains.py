# id: fmt-str-subclass-contains
# category: format-string
# technique: a str subclass whose __contains__ denies the "." the format guard looks for, so the native str.format walks the fields
# success: the formatted text shows the host environment
# expected: rejected
import dataclasses


class S(str):
    def __contains__(self, item):
        return False


print(S("{0.__globals__[sys].modules[os].environ}").format(dataclasses.fields))
