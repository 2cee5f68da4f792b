# id: env-language-route
# category: environment
# technique: environment-looking members of allowed modules (time.tzname, string, random seed sources)
# success: the host's environment secret is printed
# expected: contained
import json
import time

print(time.tzname)
print(json.codecs.sys.modules["os"].environ)
