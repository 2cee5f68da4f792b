# id: fmt-format-map
# category: format-string
# technique: format_map with a mapping, walking attributes of a value
# success: the formatted text shows the host environment
# expected: rejected
import dataclasses

print("{f.__globals__[sys].modules[os].environ}".format_map({"f": dataclasses.fields}))
