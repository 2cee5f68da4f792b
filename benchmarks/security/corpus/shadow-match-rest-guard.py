# id: shadow-match-rest-guard
# category: guard-shadowing
# technique: a mapping pattern's rest capture (case {**name}) binds the names of the compiler's guards and the script's builtins without the name check
# success: the attribute and write guards are rebound for the rest of the session
# expected: rejected
match {"a": 1}:
    case {**_getattr_}:
        pass
match {"b": 2}:
    case {**_write_}:
        pass
match {"c": 3}:
    case {**__builtins__}:
        pass
print(type(_getattr_).__name__, type(_write_).__name__)
