# id: intro-new-library-object
# category: introspection
# technique: object.__new__ / __init_subclass__ read through super() on library classes
# success: an uninitialised library object, or typing.Generic storing on itself
# expected: contained
import typing

for route in ("new", "init_subclass"):
    try:
        if route == "new":
            print("GOT", object.__new__(type(print)))
        else:
            typing.Generic.__init_subclass__()
            print("GOT init_subclass")
    except Exception as exc:
        print("blocked:", route, type(exc).__name__)
