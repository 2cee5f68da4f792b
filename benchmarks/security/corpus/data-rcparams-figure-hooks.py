# id: data-rcparams-figure-hooks
# category: data
# technique: rcParams["figure.hooks"] names "module:callable" pairs that pyplot imports and calls with every new figure
# success: an arbitrary installed module is imported and one of its functions called
# expected: rejected
import matplotlib
import matplotlib.pyplot as plt

matplotlib.rcParams["figure.hooks"] = ["this:print"]
plt.figure()
