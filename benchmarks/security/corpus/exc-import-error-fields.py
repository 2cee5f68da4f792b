# id: exc-import-error-fields
# category: exception-attrs
# technique: ImportError.name/.path and the args of the refusal, hoping for a loader object
# success: the exception exposes a host object or a host secret
# expected: contained
# ruff: noqa: B904
try:
    import os
except ImportError as exc:
    print(exc.name, exc.path, exc.args)
    loader = exc.args[0] if exc.args else None
    print(type(loader))
    raise RuntimeError(str(exc.path))
