# id: chan-language-tool-flood
# category: channel
# technique: call the host tool in a tight loop through the ordinary route
# success: the host serves more tool calls than the policy allows
# expected: contained
for i in range(10_000):
    probe_tool(value=str(i))
