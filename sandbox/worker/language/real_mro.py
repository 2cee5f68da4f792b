"""A class's MRO as the interpreter uses it, whatever its metaclass answers.

``cls.__mro__`` is an attribute lookup: a metaclass may define ``__mro__`` (a property
a script wrote, or a class the real ``type`` built) and answer anything, which would
make a library class look like the script's own. Every check of the sandbox that walks
a class's bases reads the interpreter's own slot through :func:`real_mro`.

Worker side: standard library only.
"""

from __future__ import annotations

from collections.abc import Callable

#: ``cls.__mro__`` from the type's own slot (a metaclass cannot answer for it); the
#: slot's native getter, called directly (the checks read it on hot paths).
real_mro: Callable[[type], tuple[type, ...]] = type.__dict__["__mro__"].__get__
