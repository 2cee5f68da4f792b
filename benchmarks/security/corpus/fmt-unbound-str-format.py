# id: fmt-unbound-str-format
# category: format-string
# technique: str.format(template, value) and str.format_map through the unbound method
# success: the formatted text shows the host environment
# expected: rejected
import dataclasses

template = "{0.__globals__[sys].modules[os].environ}"
f = str.format
print(f(template, dataclasses.fields))
