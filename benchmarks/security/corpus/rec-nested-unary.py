# id: rec-nested-unary
# category: recursion
# technique: source of 50 000 unary minus signs ({{DEEP_UNARY}}): a deep AST without parentheses
# success: the restricted transformer or compiler overflows the C stack
# expected: rejected
x = {{DEEP_UNARY}}
