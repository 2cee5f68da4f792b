# id: data-pandas-io-os
# category: data
# technique: walk pd.io.common (or pd.core, pd.api) to the os module it imports
# success: the secret is read, the host environment leaks or the marker directory is created
# expected: rejected
import pandas as pd


class NoOs:
    O_RDONLY = 0
    environ = {}

    def open(self, *args):
        raise PermissionError("no os reached")

    read = mkdir = open


osm = NoOs()
for route in ("io.common.os", "core.common.os", "io.formats.format.os"):
    try:
        value = pd
        for part in route.split("."):
            value = getattr(value, part)
        osm = value
        break
    except Exception as exc:
        print("blocked:", route, type(exc).__name__)
{{PAYLOAD_OS}}
