# id: fmt-map-over-method
# category: format-string
# technique: map(str.format, ...) and getattr(template, "format") so the call happens in C
# success: the formatted text shows the host environment
# expected: rejected
# ruff: noqa: B009
import dataclasses

template = "{0.__globals__[sys].modules[os].environ}"
print(list(map(str.format, [template], [dataclasses.fields])))
print(getattr(template, "format")(dataclasses.fields))
