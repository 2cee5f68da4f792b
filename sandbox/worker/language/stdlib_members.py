"""Explicit member lists for the modules added to the catalog after the first set.

Each list is an allowlist, read against the module at proxy-building time: a member
that a future Python renames simply goes missing, it is never replaced by whatever
the module grows. What is left out, and why:

- ``uuid.uuid1``/``getnode``: they read the host's hardware address (libuuid may ask
  the ``uuidd`` daemon over a socket; the fallbacks run ``ip``/``ifconfig``);
- ``io``: only the in-memory streams (``io.open`` is the real ``open``);
- ``calendar.LocaleTextCalendar``/``LocaleHTMLCalendar``/``different_locale``: they
  switch the process's locale; ``calendar.main`` parses the worker's argv;
- ``contextlib.chdir`` changes the worker's directory; ``redirect_stdout``/``stderr``
  are the sandbox's own (``stdlib_safe.py``): the real ones rebind ``sys.stdout``;
- ``types.new_class``/``prepare_class`` build classes with any metaclass and keywords
  (around the class statement's checks); ``types.coroutine`` rewrites the code flags of
  the function it is given; ``CodeType``, ``FunctionType``, ``FrameType``,
  ``TracebackType``, ``CellType``, ``ModuleType`` and the descriptor types are stand-ins
  that answer ``isinstance`` but build nothing (``FunctionType(code, globals)`` would
  make a function from any code object);
- ``zoneinfo.reset_tzpath``/``TZPATH``: pointing the zone search path at any host
  directory turns ``ZoneInfo(name)`` into a probe of host files;
- ``shlex``: only ``split``/``quote``/``join``; a ``shlex.shlex`` object's public
  ``sourcehook`` opens any host path with the real ``open``;
- ``csv.register_dialect``/``unregister_dialect``/``field_size_limit``: kept, they
  change only this worker's ``csv`` (one session's).

Worker side: standard library only.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import numbers
import types
from typing import Any

from sandbox.worker.language.classes import allow_subclassing, stand_in

MEMBERS: dict[str, tuple[str, ...]] = {
    "array": ("array", "ArrayType", "typecodes"),
    "hashlib": (
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "blake2b",
        "blake2s",
        "sha3_224",
        "sha3_256",
        "sha3_384",
        "sha3_512",
        "shake_128",
        "shake_256",
        "new",
        "pbkdf2_hmac",
        "scrypt",
    ),
    "base64": (
        "encode",
        "decode",
        "encodebytes",
        "decodebytes",
        "b64encode",
        "b64decode",
        "b32encode",
        "b32decode",
        "b32hexencode",
        "b32hexdecode",
        "b16encode",
        "b16decode",
        "b85encode",
        "b85decode",
        "a85encode",
        "a85decode",
        "standard_b64encode",
        "standard_b64decode",
        "urlsafe_b64encode",
        "urlsafe_b64decode",
    ),
    "binascii": (
        "Error",
        "Incomplete",
        "a2b_base64",
        "a2b_hex",
        "a2b_qp",
        "a2b_uu",
        "b2a_base64",
        "b2a_hex",
        "b2a_qp",
        "b2a_uu",
        "crc32",
        "crc_hqx",
        "hexlify",
        "unhexlify",
    ),
    "uuid": (
        "UUID",
        "SafeUUID",
        "uuid3",
        "uuid4",
        "uuid5",
        "NAMESPACE_DNS",
        "NAMESPACE_URL",
        "NAMESPACE_OID",
        "NAMESPACE_X500",
        "RESERVED_NCS",
        "RFC_4122",
        "RESERVED_MICROSOFT",
        "RESERVED_FUTURE",
    ),
    "csv": (
        "QUOTE_MINIMAL",
        "QUOTE_ALL",
        "QUOTE_NONNUMERIC",
        "QUOTE_NONE",
        "Error",
        "Dialect",
        "excel",
        "excel_tab",
        "unix_dialect",
        "field_size_limit",
        "reader",
        "writer",
        "register_dialect",
        "unregister_dialect",
        "get_dialect",
        "list_dialects",
        "Sniffer",
        "DictReader",
        "DictWriter",
    ),
    "io": ("StringIO", "BytesIO", "SEEK_SET", "SEEK_CUR", "SEEK_END", "UnsupportedOperation"),
    "calendar": (
        "IllegalMonthError",
        "IllegalWeekdayError",
        "setfirstweekday",
        "firstweekday",
        "isleap",
        "leapdays",
        "weekday",
        "monthrange",
        "monthcalendar",
        "prmonth",
        "month",
        "prcal",
        "calendar",
        "timegm",
        "month_name",
        "month_abbr",
        "day_name",
        "day_abbr",
        "Calendar",
        "TextCalendar",
        "HTMLCalendar",
        "weekheader",
        "MONDAY",
        "TUESDAY",
        "WEDNESDAY",
        "THURSDAY",
        "FRIDAY",
        "SATURDAY",
        "SUNDAY",
        "JANUARY",
        "FEBRUARY",
    ),
    "zoneinfo": ("ZoneInfo", "ZoneInfoNotFoundError", "available_timezones"),
    "difflib": (
        "get_close_matches",
        "ndiff",
        "restore",
        "SequenceMatcher",
        "Differ",
        "IS_CHARACTER_JUNK",
        "IS_LINE_JUNK",
        "context_diff",
        "unified_diff",
        "diff_bytes",
        "HtmlDiff",
        "Match",
    ),
    "pprint": ("pprint", "pformat", "isreadable", "isrecursive", "saferepr", "PrettyPrinter", "pp"),
    "secrets": (
        "choice",
        "randbelow",
        "randbits",
        "SystemRandom",
        "token_bytes",
        "token_hex",
        "token_urlsafe",
        "compare_digest",
    ),
    "struct": (
        "Struct",
        "calcsize",
        "error",
        "iter_unpack",
        "pack",
        "pack_into",
        "unpack",
        "unpack_from",
    ),
    "zlib": (
        "DEFLATED",
        "DEF_BUF_SIZE",
        "DEF_MEM_LEVEL",
        "MAX_WBITS",
        "ZLIB_RUNTIME_VERSION",
        "ZLIB_VERSION",
        "Z_BEST_COMPRESSION",
        "Z_BEST_SPEED",
        "Z_BLOCK",
        "Z_DEFAULT_COMPRESSION",
        "Z_DEFAULT_STRATEGY",
        "Z_FILTERED",
        "Z_FINISH",
        "Z_FIXED",
        "Z_FULL_FLUSH",
        "Z_HUFFMAN_ONLY",
        "Z_NO_COMPRESSION",
        "Z_NO_FLUSH",
        "Z_PARTIAL_FLUSH",
        "Z_RLE",
        "Z_SYNC_FLUSH",
        "Z_TREES",
        "adler32",
        "compress",
        "compressobj",
        "crc32",
        "decompress",
        "decompressobj",
        "error",
    ),
    "contextlib": (
        "asynccontextmanager",
        "contextmanager",
        "closing",
        "nullcontext",
        "AbstractContextManager",
        "AbstractAsyncContextManager",
        "AsyncExitStack",
        "ContextDecorator",
        "ExitStack",
        "suppress",
        "aclosing",
        "redirect_stdout",
        "redirect_stderr",
    ),
    "types": (
        "SimpleNamespace",
        "MappingProxyType",
        "MethodType",
        "NoneType",
        "EllipsisType",
        "NotImplementedType",
        "UnionType",
        "resolve_bases",
    ),
    "html": ("escape", "unescape"),
    "urllib": (),
    "urllib.parse": (
        "urlparse",
        "urlunparse",
        "urljoin",
        "urldefrag",
        "urlsplit",
        "urlunsplit",
        "urlencode",
        "parse_qs",
        "parse_qsl",
        "quote",
        "quote_plus",
        "quote_from_bytes",
        "unquote",
        "unquote_plus",
        "unquote_to_bytes",
        "DefragResult",
        "ParseResult",
        "SplitResult",
        "DefragResultBytes",
        "ParseResultBytes",
        "SplitResultBytes",
    ),
    "numbers": ("Number", "Complex", "Real", "Rational", "Integral"),
    "queue": ("Empty", "Full", "Queue", "PriorityQueue", "LifoQueue", "SimpleQueue"),
    "graphlib": ("TopologicalSorter", "CycleError"),
    "shlex": ("split", "quote", "join"),
    "fnmatch": ("fnmatch", "fnmatchcase", "filter", "translate"),
}

# ``stat``: constants and pure predicates on mode numbers, every public name.
MEMBERS["stat"] = tuple(name for name in dir(__import__("stat")) if not name.startswith("_"))

#: ``types`` members that only answer ``isinstance``/``issubclass`` (see above).
_TYPE_STAND_INS = (
    "FunctionType",
    "LambdaType",
    "CodeType",
    "FrameType",
    "TracebackType",
    "CellType",
    "ModuleType",
    "GeneratorType",
    "CoroutineType",
    "AsyncGeneratorType",
    "BuiltinFunctionType",
    "BuiltinMethodType",
    "MethodWrapperType",
    "WrapperDescriptorType",
    "MethodDescriptorType",
    "ClassMethodDescriptorType",
    "GetSetDescriptorType",
    "MemberDescriptorType",
)

#: Members computed here rather than taken from the module.
EXTRA: dict[str, dict[str, Any]] = {
    "types": {name: stand_in(getattr(types, name)) for name in _TYPE_STAND_INS},
    # Copies: the real sets are hashlib's own (``calendar.mdays`` is left out for the
    # same reason: calendar reads it).
    "hashlib": {
        "algorithms_guaranteed": frozenset(hashlib.algorithms_guaranteed),
        "algorithms_available": frozenset(hashlib.algorithms_available),
    },
}

allow_subclassing(
    csv.Dialect,
    csv.excel,
    io.StringIO,
    io.BytesIO,
    types.SimpleNamespace,
    contextlib.AbstractContextManager,
    contextlib.ContextDecorator,
    numbers.Number,
    numbers.Complex,
    numbers.Real,
    numbers.Rational,
    numbers.Integral,
)
