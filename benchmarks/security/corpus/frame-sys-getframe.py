# id: frame-sys-getframe
# category: frames
# technique: sys._getframe(1) / sys.exc_info() / inspect.currentframe()
# success: the caller's frame holds the real builtins
# expected: rejected
import sys

bi = sys._getframe(0).f_builtins
{{PAYLOAD_BUILTINS}}
