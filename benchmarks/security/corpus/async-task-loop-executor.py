# id: async-task-loop-executor
# category: signals-threads
# technique: a task's event loop (get_loop / get_event_loop) to run code in an executor thread
# success: a thread runs outside the script's limits, or the loop opens a subprocess
# expected: rejected
import asyncio


async def co():
    return 1


async def main():
    task = asyncio.create_task(co())
    loop = task.get_loop()
    await loop.run_in_executor(None, print, "GOT thread")
    await loop.subprocess_exec(asyncio.SubprocessProtocol, "true")


asyncio.run(main())
