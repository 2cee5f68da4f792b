# id: trick-decimal-default-context
# category: stdlib-tricks
# technique: decimal.DefaultContext is a shared library object on the attribute-write allowlist: changing it changes every later decimal.Context()
# success: library code's decimal arithmetic changes for the rest of the worker's life
# expected: contained
import decimal

decimal.DefaultContext.prec = 3
print(decimal.Context().prec)
