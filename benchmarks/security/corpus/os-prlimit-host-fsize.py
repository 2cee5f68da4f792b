# id: os-prlimit-host-fsize
# category: os
# technique: resource.prlimit (prlimit64) lowers the host process's RLIMIT_FSIZE (the soft limit, to 1 TiB, so that the runner can put it back; 0 would make its next write fail with EFBIG)
# success: the host's file-size limit changed
# expected: rejected
import resource

_, hard = resource.prlimit({{HOST_PID}}, resource.RLIMIT_FSIZE)
print(resource.prlimit({{HOST_PID}}, resource.RLIMIT_FSIZE, (1 << 40, hard)))
