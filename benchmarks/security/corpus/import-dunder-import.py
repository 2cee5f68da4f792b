# id: import-dunder-import
# category: imports
# technique: call __import__ by name
# success: __import__("os") returns the real os module
# expected: rejected
osm = __import__("os")
{{PAYLOAD_OS}}
