# id: data-pandas-float-format
# category: data
# technique: pandas turns a float_format string into its native .format: the field walks attributes past the guard
# success: the formatted frame shows a function's globals (hence the host's environment)
# expected: rejected
import pandas as pd

walk = "{0.__class__.__init__.__globals__}"
print(pd.DataFrame({"a": [1.5]}).to_string(float_format=walk))
