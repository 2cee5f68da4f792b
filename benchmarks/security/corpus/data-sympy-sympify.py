# id: data-sympy-sympify
# category: data
# technique: sympy.sympify, parse_expr and the implicit parsing of string arguments eval the text with real builtins
# success: the secret is read or the marker directory created
# expected: rejected
import sympy

code = "__import__('os').mkdir(" + repr({{MARKER}}) + ")"
for name, attempt in (
    ("sympify", lambda: sympy.sympify(code)),
    ("simplify", lambda: sympy.simplify(code)),
    ("Matrix", lambda: sympy.Matrix([code])),
    ("lambdify", lambda: sympy.lambdify("x", code)),
):
    try:
        print(name, attempt())
    except Exception as exc:
        print("blocked:", name, type(exc).__name__)
