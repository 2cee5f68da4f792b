# id: trick-abc-register-library
# category: stdlib-tricks
# technique: register a script class with a library ABC, changing isinstance for the library's own code for the rest of the worker's life
# success: collections.abc.Mapping claims the script's class
# expected: rejected
import collections.abc


class Fake:
    pass


collections.abc.Mapping.register(Fake)
print(isinstance(Fake(), collections.abc.Mapping))
