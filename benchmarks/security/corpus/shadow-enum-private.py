# id: shadow-enum-private
# category: guard-shadowing
# technique: Enum class bodies with _ignore_/_missing_ hooks and mangled private names
# success: the enum machinery runs a hook with unchecked attribute access
# expected: rejected
# ruff: noqa: B009
import enum


class Color(enum.Enum):
    _ignore_ = ["x"]
    RED = 1
    @classmethod
    def _missing_(cls, value):
        return getattr(value, "__globals__")
print(Color(print))
