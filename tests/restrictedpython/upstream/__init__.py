# Make it a package so we can import from helper.py inside the tests.
