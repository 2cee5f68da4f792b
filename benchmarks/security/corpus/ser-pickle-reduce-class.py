# id: ser-pickle-reduce-class
# category: serialization
# technique: a class whose __reduce__ returns (os.system, ("mkdir MARKER",)), pickled then loaded
# success: the shell command creates the marker
# expected: rejected
import os
import pickle


class RunCmd:
    def __reduce__(self):
        return (os.system, ("mkdir " + {{MARKER}},))
pickle.loads(pickle.dumps(RunCmd()))
