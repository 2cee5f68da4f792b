# id: fmt-private-attr-walk
# category: format-string
# technique: "{0._os.environ}".format(random) — a private attribute reached by a format field
# success: the host's environment (its secret) is formatted into the output
# expected: rejected
import random

print("{0._os.environ}".format(random))  # noqa: UP030, UP032 (the walk is the attack)
