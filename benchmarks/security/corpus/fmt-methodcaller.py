# id: fmt-methodcaller
# category: format-string
# technique: operator.methodcaller("format", fn) applied to the template
# success: the formatted text shows the host environment
# expected: rejected
import dataclasses
import operator

call = operator.methodcaller("format", dataclasses.fields)
print(call("{0.__globals__[sys].modules[os].environ}"))
