# id: copy-getattr-deepcopy
# category: stdlib-tricks
# technique: a __getattr__ answers deepcopy's instance lookup of __deepcopy__ and gets the real memo
# success: the memo hands out the originals of every object copied (library internals)
# expected: contained
import copy
import json


class A:
    def __getattr__(self, name):
        if name == "__deepcopy__":
            def copier(memo):
                print("GOT", type(memo).__name__, [type(v).__name__ for v in memo.values()])
                return None
            return copier
        raise AttributeError(name)


copy.deepcopy([json.JSONEncoder(), A()])
