# id: import-star
# category: imports
# technique: from os import * to get open/read/environ/mkdir as plain names
# success: the star-imported functions read the secret file, print the environment secret or create the marker
# expected: rejected
# ruff: noqa: F403, F405, SIM115
from os import *

for step in ("read", "env", "mkdir"):
    try:
        if step == "read":
            print(read(open({{SECRET_FILE}}, O_RDONLY), 4096))
        elif step == "env":
            print(environ.get({{SECRET_ENV}}))
        else:
            mkdir({{MARKER}})
    except Exception as exc:
        print("blocked:", step, type(exc).__name__)
