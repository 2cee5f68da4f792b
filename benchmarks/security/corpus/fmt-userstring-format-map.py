# id: fmt-userstring-format-map
# category: format-string
# technique: collections.UserString(t).format_map(m) calls the native str.format_map on self.data
# success: the formatted text shows the host environment's secret
# expected: rejected
import collections
import json

template = "{f.__globals__[codecs].sys.modules[os].environ[" + {{SECRET_ENV}} + "]}"
print(collections.UserString(template).format_map({"f": json.loads}))
