# id: fmt-globals-walk
# category: format-string
# technique: "{0.__globals__[sys].modules[os].environ}".format(fn) — a format field walk
# success: the formatted text shows the host environment (its secret) or a real module
# expected: rejected
import dataclasses

template = "{0.__globals__[sys].modules[os].environ}"
print(template.format(dataclasses.fields))
