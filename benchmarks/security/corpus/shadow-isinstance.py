# id: shadow-isinstance
# category: guard-shadowing
# technique: shadow isinstance/type/str so a guard that consults them is fooled
# success: a format walk passes the guard and prints the environment
# expected: rejected
# ruff: noqa: E731, UP030, UP032
import dataclasses

isinstance = lambda *args: False
type = lambda *args: int
str = int
print("{0.__globals__[sys].modules[os].environ}".format(dataclasses.fields))
