"""numpy and pandas values rebuilt from a snapshot (the nodes ``snapshot_data.py`` writes).

Each library is used only when the policy lets the script import it (asked through the
script's own import); its values come from its public constructors only —
``numpy.frombuffer`` with a dtype of the raw kinds (never ``object`` from bytes, which
would be pointers), ``pandas.DataFrame``/``Series``/``Index``/``array`` with a dtype
from the named list — so a snapshot can only produce what a script could have built.

Worker side: standard library only.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sandbox.worker.snapshot_data import PANDAS_DTYPES
from sandbox.worker.snapshot_nodes import NotRebuilt, b64_field, field, ints, iso, refuse

if TYPE_CHECKING:
    from sandbox.worker.restore import Restorer

#: A plain dtype: byte order, kind, item size, and a unit for dates (``<M8[ns]``).
_RAW_DTYPE = re.compile(r"[<>|=]?[biufcmMUS][0-9]{1,3}(\[[0-9]*[a-zA-Z]{1,2}\])?")
_MAX_DIMENSIONS = 32


def _library(r: Restorer, name: str) -> Any:
    r.import_(name)  # refused unless the policy lets the script import it
    module = sys.modules.get(name)
    if module is None:
        raise NotRebuilt(f"{name} is not loaded in this sandbox")
    return module


def _shape(n: dict[str, Any]) -> list[int]:
    shape = field(n, "shape", list)
    refuse(len(shape) <= _MAX_DIMENSIONS, "an array's shape")
    refuse(all(type(x) is int and x >= 0 for x in shape), "an array's shape")
    return [int(x) for x in shape]


def _ndarray(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    np = _library(r, "numpy")
    dtype_text, shape = field(n, "dtype", str), _shape(n)
    if dtype_text == "O":
        made = np.empty(math.prod(shape), dtype=object)
        r.built[i] = made.reshape(shape) if shape else made
        items = r.items(n, d)
        refuse(len(items) == made.size, "an array's items")
        for k, item in enumerate(items):
            made[k] = item
        return r.built[i]
    refuse(_RAW_DTYPE.fullmatch(dtype_text) is not None, "an array's dtype")
    dtype = np.dtype(dtype_text)
    refuse(dtype.kind in "biufcmMUS" and dtype.itemsize > 0, "an array's dtype")
    raw = b64_field(n)
    refuse(len(raw) == math.prod(shape) * dtype.itemsize, "an array's data")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _npscalar(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    np = _library(r, "numpy")
    dtype_text = field(n, "dtype", str)
    refuse(_RAW_DTYPE.fullmatch(dtype_text) is not None, "a scalar's dtype")
    dtype = np.dtype(dtype_text)
    raw = b64_field(n)
    refuse(len(raw) == dtype.itemsize and dtype.itemsize > 0, "a scalar's data")
    return np.frombuffer(raw, dtype=dtype)[0]


def _column(r: Restorer, value: Any, d: int) -> Any:
    """A series' or an index's values: an array entry, or an inline extension array."""
    if type(value) is dict and value.get("t") == "extarray":
        pd = _library(r, "pandas")
        dtype = field(value, "dtype", str)
        refuse(dtype in PANDAS_DTYPES, "a column's dtype")
        return pd.array(r.items(value, d), dtype=dtype)
    array = r.value(value, d)
    np = _library(r, "numpy")
    refuse(type(array) is np.ndarray and array.ndim == 1, "a column")
    return array


def _index(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    pd = _library(r, "pandas")
    return pd.Index(_column(r, n.get("values"), d), name=r.value(n.get("name"), d))


def _range_index(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    pd = _library(r, "pandas")
    start, stop, step = ints(n, "args", 3)
    refuse(step != 0, "a range index")
    return pd.RangeIndex(start, stop, step, name=r.value(n.get("name"), d))


def _an_index(r: Restorer, value: Any, d: int) -> Any:
    index = r.value(value, d)
    refuse(isinstance(index, _library(r, "pandas").Index), "an index")
    return index


def _series(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    pd = _library(r, "pandas")
    index = _an_index(r, n.get("index"), d)
    values = _column(r, n.get("values"), d)
    return pd.Series(values, index=index, name=r.value(n.get("name"), d), copy=False)


def _dataframe(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    pd = _library(r, "pandas")
    index = _an_index(r, n.get("index"), d)
    columns = _an_index(r, n.get("columns"), d)
    data = [_column(r, c, d) for c in field(n, "data", list)]
    refuse(len(data) == len(columns), "a frame's columns")
    refuse(all(len(c) == len(index) for c in data), "a frame's column lengths")
    frame = pd.DataFrame(dict(enumerate(data)), index=index) if data else pd.DataFrame(index=index)
    frame.columns = columns
    return frame


def _timestamp(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    return iso(n, _library(r, "pandas").Timestamp)


def _pd_timedelta(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    return _library(r, "pandas").Timedelta(field(n, "ns", int), unit="ns")


BUILDERS: dict[str, Callable[[Restorer, int, dict[str, Any], int], Any]] = {
    "ndarray": _ndarray,
    "npscalar": _npscalar,
    "dataframe": _dataframe,
    "series": _series,
    "index": _index,
    "rangeindex": _range_index,
    "timestamp": _timestamp,
    "pdtimedelta": _pd_timedelta,
    "nat": lambda r, i, n, d: _library(r, "pandas").NaT,
    "na": lambda r, i, n, d: _library(r, "pandas").NA,
}
