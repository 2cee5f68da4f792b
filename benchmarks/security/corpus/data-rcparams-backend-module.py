# id: data-rcparams-backend-module
# category: data
# technique: rcParams["backend"] = "module://this" (or written with dict.__setitem__ past the validators) makes pyplot import any installed module by name
# success: an arbitrary installed module is imported (the Zen of Python is printed)
# expected: rejected
import matplotlib
import matplotlib.pyplot as plt

dict.__setitem__(matplotlib.rcParams, "backend", "module://this")
plt.figure()
