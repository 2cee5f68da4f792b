# id: data-pandas-agg-dunder
# category: data
# technique: Series.agg("__dict__") reads the named attribute with getattr: a dunder name as data hands out the real __dict__
# success: the script holds a pandas object's internal state
# expected: rejected
import pandas as pd

d = pd.Series([1, 2]).agg("__dict__")
print(type(d).__name__, sorted(d)[:3])
