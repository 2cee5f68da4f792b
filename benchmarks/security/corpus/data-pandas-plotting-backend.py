# id: data-pandas-plotting-backend
# category: data
# technique: pandas' plotting.backend option names a module that the next plot imports (any installed module, by name)
# success: an arbitrary installed module is imported (the Zen of Python is printed)
# expected: rejected
import pandas as pd

pd.set_option("plotting.backend", "this")
pd.Series([1, 2]).plot()
