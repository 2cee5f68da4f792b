# id: data-pandas-query
# category: data
# technique: DataFrame.query / DataFrame.eval / pd.eval with a string that walks to os (the CVE-2024-9880 class)
# success: the secret is read, or the marker directory created, through pandas' string evaluation
# expected: rejected
import pandas as pd

df = pd.DataFrame({"a": [1, 2]})
attempts = {
    "query": lambda: df.query("@df.__class__.__init__.__globals__['os'].mkdir(" + repr({{MARKER}}) + ")"),
    "eval": lambda: df.eval("a.__class__"),
    "pd.eval": lambda: pd.eval("__import__('os').mkdir(" + repr({{MARKER}}) + ")", engine="python"),
}
for name, attempt in attempts.items():
    try:
        print(name, attempt())
    except Exception as exc:
        print("blocked:", name, type(exc).__name__)
