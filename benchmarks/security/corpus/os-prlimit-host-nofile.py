# id: os-prlimit-host-nofile
# category: os
# technique: resource.prlimit (prlimit64) changes the host process's RLIMIT_NOFILE (soft limit only, so that the runner can put it back)
# success: the host's open-file limit changed
# expected: rejected
import resource

soft, hard = resource.prlimit({{HOST_PID}}, resource.RLIMIT_NOFILE)
print(resource.prlimit({{HOST_PID}}, resource.RLIMIT_NOFILE, (max(soft - 1, 64), hard)))
