# id: rec-nested-source
# category: recursion
# technique: a 30 000-deep parenthesised expression in the source itself ({{DEEP_PARENS}} expands to it)
# success: the compiler overflows the C stack and the next session fails
# expected: rejected
x = {{DEEP_PARENS}}
