"""A mapping proxy as scripts hold it: reads only, and never the mapping behind it.

``types.MappingProxyType`` is how library code lends out a dict it keeps (a class's
namespace, ``Field.metadata``'s shared empty dict, a cached pattern's ``groupindex``).
But its operators hand that dict to the other operand: ``proxy | x`` and ``proxy == x``
evaluate ``mapping | x`` and ``mapping == x``, so a script object's ``__ror__`` or
``__eq__`` receives the real dict and can write to it. The membrane therefore hands
scripts a :class:`ReadOnlyView` of every mapping proxy: the same reads, its operators on
a copy.

Worker side: standard library only.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping
from typing import Any


class ReadOnlyView(Mapping[Any, Any]):
    """The reads of a ``mappingproxy``; ``|`` and comparisons work on a copy."""

    __slots__ = ("_proxy",)

    def __init__(self, proxy: types.MappingProxyType[Any, Any]) -> None:
        self._proxy = proxy

    def __getitem__(self, key: Any) -> Any:
        return self._proxy[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._proxy)

    def __len__(self) -> int:
        return len(self._proxy)

    def __contains__(self, key: object) -> bool:
        return key in self._proxy

    def __reversed__(self) -> Iterator[Any]:
        return iter(reversed(self._proxy))

    def copy(self) -> Any:
        return self._proxy.copy()

    def __or__(self, other: Any) -> Any:
        return dict(self._proxy) | other

    def __ror__(self, other: Any) -> Any:
        return other | dict(self._proxy)

    def __eq__(self, other: object) -> bool:
        return dict(self._proxy) == other

    def __ne__(self, other: object) -> bool:
        return dict(self._proxy) != other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._proxy)


ReadOnlyView.__name__ = ReadOnlyView.__qualname__ = "mappingproxy"
