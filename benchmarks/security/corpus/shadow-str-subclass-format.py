# id: shadow-str-subclass-format
# category: guard-shadowing
# technique: a str subclass whose format is looked up on the subclass, then str.format called on it
# success: the native formatter walks the fields
# expected: rejected
import dataclasses


class Template(str):
    pass
t = Template("{0.__globals__[sys].modules[os].environ}")
print(type(t).format(t, dataclasses.fields))
print(Template.format(t, dataclasses.fields))
