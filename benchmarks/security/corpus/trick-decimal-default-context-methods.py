# id: trick-decimal-default-context-methods
# category: stdlib-tricks
# technique: decimal.DefaultContext refuses attribute stores, but its methods and its traps/flags mappings change it too: clear_traps() or traps[...] = ... change every later decimal.Context()
# success: library code's decimal arithmetic stops trapping division by zero for the rest of the worker's life
# expected: contained
import decimal

decimal.DefaultContext.clear_traps()
decimal.DefaultContext.traps[decimal.Inexact] = True
print(decimal.Context().traps[decimal.DivisionByZero], decimal.Context().traps[decimal.Inexact])
