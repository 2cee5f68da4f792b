# id: trick-namedtuple-eval
# category: stdlib-tricks
# technique: collections.namedtuple builds code from field names; inject code through a field name or default
# success: the injected expression runs with the real builtins and creates the marker
# expected: contained
import collections

payload = "a=__import__('os').mkdir(" + repr({{MARKER}}) + ")"
T = collections.namedtuple("T", ["x", payload])
print(T)
