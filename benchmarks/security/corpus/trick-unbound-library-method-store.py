# id: trick-unbound-library-method-store
# category: stdlib-tricks
# technique: an unbound method of a library class (difflib.SequenceMatcher.set_seq1) called with a library class as self stores attributes on it
# success: json.JSONEncoder gains attributes for the rest of the worker's life
# expected: rejected
import difflib
import json

difflib.SequenceMatcher.set_seq1(json.JSONEncoder, "x")
print(json.JSONEncoder.a)
