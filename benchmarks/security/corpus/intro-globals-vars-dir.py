# id: intro-globals-vars-dir
# category: introspection
# technique: globals()/vars()/locals() to find the script's __builtins__
# success: the script's builtins dict holds the real __import__
# expected: contained
try:
    found = globals()
except NameError:
    try:
        found = vars()
    except NameError:
        found = locals()
bi = found["__builtins__"]
{{PAYLOAD_BUILTINS}}
