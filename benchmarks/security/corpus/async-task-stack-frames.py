# id: async-task-stack-frames
# category: frames
# technique: a task's get_stack() frames, and an async generator's ag_frame, through getattr
# success: a frame's f_globals or f_builtins reach the real builtins
# expected: rejected
import asyncio


async def agen():
    yield 1


async def main():
    task = asyncio.create_task(asyncio.sleep(0))
    for route in ("get_stack", "get_coro"):
        try:
            print("GOT", route, getattr(task, route)())
        except Exception as exc:
            print("blocked:", route, type(exc).__name__)
    frame = agen().ag_frame
    return frame.f_builtins


bi = asyncio.run(main())
{{PAYLOAD_BUILTINS}}
