# id: chan-huge-tool-args
# category: channel
# technique: a 20 MB tool-call argument, then a 100 000-deep nested one
# success: the host buffers without bound, crashes, or the next session fails
# expected: contained
try:
    probe_tool(value="a" * 20_000_000)
except Exception as exc:
    print(type(exc).__name__)
deep = []
for _ in range(100_000):
    deep = [deep]
probe_tool(value=deep)
