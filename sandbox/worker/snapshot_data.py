"""numpy arrays and scalars, pandas frames, series and indexes, as snapshot nodes.

Read only from ``sys.modules``: a worker holds these libraries only when its policy
allowed them (the zygote imported them), and this module never imports them itself.
Arrays of booleans, numbers, dates and fixed-width text are kept as their raw bytes
(base64) with the dtype's exact string; arrays of objects as the list of their items;
pandas extension columns (``category``, ``Int64``, ``string``...) as their values and
the dtype's name. See ``snapshot.py`` for the document these nodes live in.

Worker side: standard library only.
"""

from __future__ import annotations

import base64
import sys
from typing import Any

#: numpy dtype kinds kept as raw bytes: booleans, numbers, dates, fixed-width text.
RAW_KINDS = frozenset("biufcmMUS")
#: pandas extension dtypes kept by name (their values as a list).
PANDAS_DTYPES = frozenset(
    {"category", "str", "string", "boolean", "Float32", "Float64"}
    | {f"{s}Int{n}" for s in ("", "U") for n in (8, 16, 32, 64)}
)


def encode(enc: Any, value: Any, kind: type, depth: int) -> Any:
    """``value``'s node reference when it is a numpy or pandas value, else None.

    ``enc`` is the :class:`~sandbox.worker.snapshot.Snapshotter` (its ``add``,
    ``filled``, ``items_of`` and ``value``); its ``Unkeepable`` is raised for values of
    these libraries that have no node.
    """
    np = sys.modules.get("numpy")
    if np is not None:
        if kind is np.ndarray:
            return _array(enc, value, depth)
        if issubclass(kind, np.generic):
            dtype = value.dtype
            if dtype.kind not in RAW_KINDS or dtype.fields is not None:
                raise enc.unkeepable(f"a numpy {dtype} scalar")
            return enc.add(
                value, {"t": "npscalar", "dtype": dtype.str, "b64": _b64(value.tobytes())}
            )
    pd = sys.modules.get("pandas")
    if pd is not None:
        return _pandas(enc, pd, value, kind, depth)
    return None


def _array(enc: Any, array: Any, depth: int) -> Any:
    dtype = array.dtype
    shape = [int(n) for n in array.shape]
    if dtype.fields is not None or dtype.subdtype is not None:
        raise enc.unkeepable(f"a numpy array of structured dtype {dtype}")
    if dtype.kind in RAW_KINDS:
        data = _b64(array.tobytes(order="C"))
        return enc.filled(
            array, "ndarray", lambda: {"dtype": dtype.str, "shape": shape, "b64": data}
        )
    if dtype.kind == "O":
        return enc.filled(
            array,
            "ndarray",
            lambda: {"dtype": "O", "shape": shape, "items": enc.items_of(array.reshape(-1), depth)},
        )
    raise enc.unkeepable(f"a numpy array of dtype {dtype}")


def _pandas(enc: Any, pd: Any, value: Any, kind: type, depth: int) -> Any:
    if kind is pd.DataFrame:
        columns = [value.iloc[:, i] for i in range(value.shape[1])]
        return enc.filled(
            value,
            "dataframe",
            lambda: {
                "index": _index(enc, pd, value.index, depth),
                "columns": _index(enc, pd, value.columns, depth),
                "data": [_column(enc, pd, c, depth) for c in columns],
            },
        )
    if kind is pd.Series:
        return enc.filled(
            value,
            "series",
            lambda: {
                "index": _index(enc, pd, value.index, depth),
                "name": enc.value(value.name, depth),
                "values": _column(enc, pd, value, depth),
            },
        )
    if issubclass(kind, pd.Index):
        return _index(enc, pd, value, depth)
    if kind is pd.Timestamp:
        return enc.add(value, {"t": "timestamp", "iso": value.isoformat()})
    if kind is pd.Timedelta:
        return enc.add(value, {"t": "pdtimedelta", "ns": int(value.value)})
    if value is pd.NaT:
        return enc.add(value, {"t": "nat"})
    if value is pd.NA:
        return enc.add(value, {"t": "na"})
    return None


def _index(enc: Any, pd: Any, index: Any, depth: int) -> Any:
    kind = type(index)
    if kind is pd.RangeIndex:
        args = [int(index.start), int(index.stop), int(index.step)]
        return enc.add(
            index, {"t": "rangeindex", "args": args, "name": enc.value(index.name, depth)}
        )
    if kind is pd.MultiIndex or not issubclass(kind, pd.Index):
        raise enc.unkeepable(f"a pandas {kind.__name__}")
    return enc.add(
        index,
        {
            "t": "index",
            "name": enc.value(index.name, depth),
            "values": _column(enc, pd, index, depth),
        },
    )


def _column(enc: Any, pd: Any, values: Any, depth: int) -> Any:
    """The values of a series or an index: a numpy array, or an extension array."""
    np = sys.modules["numpy"]
    dtype = values.dtype
    if isinstance(dtype, np.dtype):
        return enc.value(values.to_numpy(copy=True), depth)
    name = str(dtype)
    if name not in PANDAS_DTYPES:
        raise enc.unkeepable(f"a pandas column of dtype {name}")
    items = values.astype(object).tolist()
    return {"t": "extarray", "dtype": name, "items": enc.items_of(items, depth)}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
