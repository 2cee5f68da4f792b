"""RestrictedPython 9.0's own test suite, run against the sandbox's compiler."""
