# id: fmt-fstring
# category: format-string
# technique: an f-string with an attribute walk
# success: the f-string shows the host environment
# expected: rejected
import dataclasses

fn = dataclasses.fields
print(f"{fn.__globals__['sys'].modules['os'].environ}")
