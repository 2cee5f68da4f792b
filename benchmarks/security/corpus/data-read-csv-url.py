# id: data-read-csv-url
# category: data
# technique: pd.read_csv and pd.read_json of a URL served by a host listener
# success: the listener is contacted
# expected: rejected
import pandas as pd

url = "http://127.0.0.1:" + str({{PORT}}) + "/x.csv"
for reader in ("read_csv", "read_json", "read_html"):
    try:
        print(getattr(pd, reader)(url))
    except Exception as exc:
        print("blocked:", reader, type(exc).__name__)
