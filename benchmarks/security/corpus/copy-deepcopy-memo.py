# id: copy-deepcopy-memo
# category: stdlib-tricks
# technique: a __deepcopy__ reads copy's memo (every object copied, and the originals)
# success: the memo hands out a library object's internal state
# expected: contained
import copy
import json


class Spy:
    def __deepcopy__(self, memo):
        for route in ("values", "_memo"):
            try:
                print("GOT", route, list(getattr(memo, route)() if route == "values" else memo._memo))
            except Exception as exc:
                print("blocked:", route, type(exc).__name__)
        return Spy()


copy.deepcopy([json.JSONEncoder(), Spy()])
copy.deepcopy(Spy(), {})
