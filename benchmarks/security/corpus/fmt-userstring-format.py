# id: fmt-userstring-format
# category: format-string
# technique: collections.UserString(t).format(x) calls the native str.format on self.data: the field walks __globals__ past the guard
# success: the formatted text shows the host environment's secret
# expected: rejected
import collections
import json

template = "{0.__globals__[codecs].sys.modules[os].environ[" + {{SECRET_ENV}} + "]}"
print(collections.UserString(template).format(json.loads))
