# id: data-sympy-doctest-repr
# category: data
# technique: sympy.doctest (and sympy.test) start a Python process whose -c command line holds repr() of their arguments: a script object's __repr__ writes the code
# success: the child process, outside every check, creates the marker directory
# expected: rejected
import sympy


class Code:
    def __repr__(self):
        return "__import__('os').mkdir(" + repr({{MARKER}}) + ")"


sympy.doctest(Code())
