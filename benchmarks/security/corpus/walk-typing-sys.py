# id: walk-typing-sys
# category: module-walk
# technique: typing.sys and dataclasses.sys — modules imported by allowed modules
# success: a real sys module, hence os
# expected: contained
import dataclasses
import typing

try:
    osm = typing.sys.modules["os"]
except AttributeError:
    osm = dataclasses.sys.modules["os"]
{{PAYLOAD_OS}}
