# id: fmt-string-formatter
# category: format-string
# technique: string.Formatter().get_field walks dotted fields natively
# success: the field walk returns the real os module's environment
# expected: contained
import dataclasses
import string

formatter = string.Formatter()
value, _ = formatter.get_field("0.__globals__[sys].modules[os].environ", [dataclasses.fields], {})
print(value)
