# id: ser-shelve-dbm
# category: serialization
# technique: shelve/dbm open a database file outside the mounts (pickle underneath)
# success: the marker file (a database) is created on the host
# expected: rejected
import shelve

with shelve.open({{MARKER}}) as db:
    db["x"] = 1
