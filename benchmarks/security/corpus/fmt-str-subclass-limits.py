# id: fmt-str-subclass-limits
# category: format-string
# technique: a str subclass template walking a result helper's __self__ (the worker's runtime) and a library function's real builtins
# success: the worker's limits and the real open are printed, then the environment
# expected: rejected
import dataclasses
import json


class S(str):
    def __contains__(self, item):
        return False


print(S("{0.__self__.limits}").format(final_result))
print(S("{0.__globals__[__builtins__][open]}").format(json.dumps))
print(S("{f.__globals__[sys].modules[os].environ}").format_map({"f": dataclasses.fields}))
