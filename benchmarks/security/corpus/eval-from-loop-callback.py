# id: eval-from-loop-callback
# category: environment
# technique: eval called back by the script's event loop (a task's done callback, key=eval) has no script frame below it; it once fell back to the runtime's own globals (the real sys and builtins)
# success: the host's environment secret is printed
# expected: contained
# ruff: noqa: F704
import asyncio
import functools


async def noop():
    pass


def go(src):
    t = asyncio.create_task(noop())
    t.add_done_callback(functools.partial(max, src, key=eval))
    return t


await go("print(sys.modules['os'].environ)")
await asyncio.sleep(0)
