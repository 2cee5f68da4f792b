# id: ctypes-pythonapi
# category: ctypes
# technique: ctypes.pythonapi.PyRun_SimpleString to run code outside the script's globals
# success: the code creates the marker
# expected: rejected
import ctypes

code = "import os; os.mkdir(" + repr({{MARKER}}) + ")"
print(ctypes.pythonapi.PyRun_SimpleString(code.encode()))
