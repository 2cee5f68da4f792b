# id: exc-forge-limit-via-print-file
# category: exception-attrs
# technique: get the sandbox's limit exception from __exit__, then have print(file=...) call a library callable (a defaultdict's factory) that creates one from the runtime's own frame
# success: the run reports a limit code the script chose ("timeout", which only the host decides) with the script's message
# expected: contained
import collections
import functools
import operator

caught = []


class Catch:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        caught.append(kind)
        return True


with Catch():
    while True:
        print("x" * 10000)
made = collections.defaultdict(functools.partial(caught[0], "timeout", "forged by the script"))


class Sink:
    pass


sink = Sink()
sink.write = functools.partial(operator.getitem, made)
print("key", file=sink)
raise made["key\n"]
