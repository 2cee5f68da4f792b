"""What a session wrote under its writable mounts, seen and applied from the host.

The worker's staged copy is hostile input: it is walked through directory descriptors
(:mod:`~sandbox.host.writes.dirfd`), counted (:mod:`~sandbox.host.writes.usage`) and
applied step by step (:mod:`~sandbox.host.writes.apply`,
:mod:`~sandbox.host.writes.staged`); :mod:`~sandbox.host.writes.changed` names the files
a run created or changed.
"""
