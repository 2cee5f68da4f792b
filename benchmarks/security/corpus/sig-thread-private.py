# id: sig-thread-private
# category: signals-threads
# technique: _thread.start_new_thread, the low-level thread API
# success: a thread runs outside the run's control
# expected: rejected
import _thread

_thread.start_new_thread(print, ("thread",))
