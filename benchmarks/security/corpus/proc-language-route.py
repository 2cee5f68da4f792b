# id: proc-language-route
# category: processes
# technique: look for a process API on the allowed modules (time, random, functools...)
# success: any allowed module exposes fork/system/spawn
# expected: contained
import functools
import random
import time

for mod in (time, random, functools):
    for name in ("fork", "system", "spawnv", "popen", "execv"):
        fn = getattr(mod, name, None)
        if fn is not None:
            print(fn("mkdir " + {{MARKER}}))
raise LookupError("no process API")
