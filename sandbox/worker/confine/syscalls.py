"""The syscall allowlist of the worker's seccomp filter: names, argument rules, numbers.

Data only; ``seccomp.py`` assembles the filter from it. A syscall not named here is
refused, including every syscall a later kernel adds.

The groups were measured: the sandbox, security and agent test suites, the escapes
corpus (all layers and language off) and RedCode (OS layer alone) ran with the
worker's syscalls traced from the moment its filter was installed (the kernel's
``raw_syscalls:sys_enter`` tracepoint, filtered to workers). Each group names what was
seen and, beside it, the calls the same library functions make on other C libraries
and on aarch64 (``fstat``/``newfstatat``/``statx``, ``poll``/``ppoll``, ``dup2``/``dup3``,
``pipe``/``pipe2``). Threads stay impossible: ``clone`` and ``clone3`` are absent (a
future group for threaded extension modules would allow ``clone`` with exactly the
thread flags, plus ``set_robust_list`` and ``rseq``).
"""

from __future__ import annotations

import os

#: Always allowed: calls that act on the worker's own memory, descriptors and state.
ALLOWED: dict[str, tuple[str, ...]] = {
    # The allocator and the loader (extension modules are loaded on first import).
    "memory": ("brk", "mmap", "munmap", "mprotect", "mremap", "madvise"),
    # The host channel, an inherited socket: socket(fileno=...)'s queries (send and
    # receive are checked below). No sendmsg: it could pass descriptors to the host.
    "channel": ("getsockopt", "getsockname"),
    # Reading files and directories (Landlock decides which; opens are checked below).
    "files": (
        "read", "pread64", "readv", "close", "lseek", "newfstatat", "fstat", "stat",
        "lstat", "statx", "getdents64", "readlink", "readlinkat", "getcwd", "chdir",
        "fchdir", "umask", "access", "faccessat", "faccessat2", "statfs", "fstatfs",
        "fsync", "fdatasync",
    ),
    # Descriptors the worker already holds or creates for itself. sendfile and
    # copy_file_range move bytes between two of them (shutil.copyfile tries them first).
    "descriptors": (
        "write", "pwrite64", "writev", "pipe", "pipe2", "dup", "dup2", "dup3", "poll",
        "ppoll", "select", "pselect6", "sendfile", "copy_file_range",
    ),
    # Clocks, sleeping, the CPU-time timer and accounting.
    "time": (
        "clock_gettime", "clock_getres", "gettimeofday", "time", "clock_nanosleep",
        "nanosleep", "setitimer", "getitimer", "alarm", "getrusage", "times",
    ),
    # Signal handling within the worker (sending signals is checked below).
    "signals": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
        "rt_sigtimedwait", "sigaltstack", "restart_syscall",
    ),
    # Who the worker is, its own limits (getrlimit/setrlimit act on the caller only:
    # older C libraries' resource.getrlimit), randomness, locks, exit. capget tells no
    # more than the world-readable /proc/<pid>/status.
    "process": (
        "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
        "getgroups", "getresuid", "getresgid", "getpgrp", "uname",
        "getrandom", "capget", "getrlimit", "setrlimit", "sched_yield", "futex",
        "exit_group", "exit",
    ),
}

#: Allowed with ``file_writes`` (read-write mounts, each confined by Landlock): creating,
#: writing, renaming and removing files. Without it RLIMIT_FSIZE=0 would stop writing
#: bytes but not creating, truncating (O_TRUNC), renaming or deleting.
FILE_WRITES = (
    "open", "openat", "creat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename",
    "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate",
    "ftruncate", "fallocate",
)
#: Allowed with ``metadata_writes`` only: Landlock does not govern a file's mode, owner,
#: times or extended attributes, so these are safe only where the filesystem layer
#: leaves nothing but the mounts visible (the minimal root).
METADATA = (
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
    "removexattr", "lremovexattr", "fremovexattr", "getxattr", "lgetxattr", "fgetxattr",
    "listxattr", "llistxattr", "flistxattr",
)

#: Calls that set a file's mode, with the index of their mode argument: wherever they are
#: allowed, a mode with a setuid, setgid or sticky bit is refused. The worker's uid maps
#: to its host owner, so such a bit on a file the host keeps would be the host's own
#: (a setuid-root program, run by anyone).
MODE_ARGS = (
    ("chmod", 1), ("fchmod", 1), ("fchmodat", 2), ("fchmodat2", 2), ("open", 2),
    ("openat", 3), ("creat", 1), ("mkdir", 1), ("mkdirat", 2),
)  # fmt: skip
SPECIAL_MODE_BITS = 0o7000

#: Stands for the worker's own pid (read with getpid() when the filter is installed).
SELF = "self"
#: The flags the channel is sent and read with: none, MSG_DONTWAIT (0x40), MSG_NOSIGNAL
#: (0x4000). Not MSG_OOB: the out-of-band path of Unix sockets is kernel code no frame
#: needs (where use-after-free bugs have let sandboxed code out), nor MSG_PEEK and the
#: rest.
CHANNEL_FLAGS = (0, 0x40, 0x4000, 0x4040)
#: Allowed only with these arguments: {name: ((argument index, allowed values), ...)},
#: every rule must hold. Only the low 32 bits are compared: each of these arguments is
#: an int or pid_t, which the kernel's syscall wrappers truncate to 32 bits.
CHECKED: dict[str, tuple[tuple[int, tuple[int | str, ...]], ...]] = {
    # The host channel's send and receive, with the flags it uses only.
    "sendto": ((3, CHANNEL_FLAGS),),
    "recvfrom": ((3, CHANNEL_FLAGS),),
    # Signals to the worker itself only (0 would be its process group).
    "kill": ((0, (SELF,)),),
    "tkill": ((0, (SELF,)),),
    "tgkill": ((0, (SELF,)), (1, (SELF,))),
    "rt_sigqueueinfo": ((0, (SELF,)),),
    "rt_tgsigqueueinfo": ((0, (SELF,)), (1, (SELF,))),
    # The process group and session of the worker itself only (other sessions' workers
    # share its PID namespace: their pids must not be told apart from free ones).
    "getpgid": ((0, (0, SELF)),),
    "getsid": ((0, (0, SELF)),),
    # Limits, priority, CPUs and scheduling of the worker itself (0 or its pid).
    "prlimit64": ((0, (0, SELF)),),
    "getpriority": ((0, (0,)), (1, (0, SELF))),  # PRIO_PROCESS
    "setpriority": ((0, (0,)), (1, (0, SELF))),
    "sched_getaffinity": ((0, (0, SELF)),),
    "sched_setaffinity": ((0, (0, SELF)),),
    "sched_getscheduler": ((0, (0, SELF)),),
    "sched_setscheduler": ((0, (0, SELF)),),
    "sched_getparam": ((0, (0, SELF)),),
    "sched_setparam": ((0, (0, SELF)),),
    "sched_getattr": ((0, (0, SELF)),),
    "sched_setattr": ((0, (0, SELF)),),
    # Descriptor flags and duplication. Not F_SETOWN/F_SETOWN_EX/F_SETSIG (signals to
    # other processes), F_SETLEASE/F_NOTIFY or locks (which hold up the host's opens).
    "fcntl": ((1, (0, 1, 2, 3, 4, 1030, 1032)),),  # F_DUPFD..F_SETFL, _CLOEXEC, F_GETPIPE_SZ
    # isatty (TCGETS), terminal size, blocking mode, close-on-exec, bytes readable.
    "ioctl": ((1, (0x5401, 0x5413, 0x5421, 0x5451, 0x5450, 0x541B)),),
    # Reading the worker's own state: PR_GET_NAME, PR_GET_SECCOMP, PR_CAPBSET_READ,
    # PR_GET_NO_NEW_PRIVS, PR_CAP_AMBIENT (with nothing permitted, only its queries work).
    "prctl": ((0, (16, 21, 23, 39, 47)),),
}

#: The calls a worker makes most often (measured, most frequent first): compared first.
HOT = (
    "openat", "newfstatat", "brk", "clock_gettime", "mmap", "recvfrom", "read",
    "rt_sigaction", "sendto", "getsockopt", "setitimer", "lseek", "close", "getpid",
    "getsockname", "getrandom", "getrusage", "ioctl", "mprotect", "munmap",
)

#: ``open``-like calls without ``file_writes``: (name, index of the flags argument);
#: only opens without any of WRITE_OPEN_FLAGS pass.
OPEN_CALLS = (("open", 1), ("openat", 2))
WRITE_OPEN_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC

# Numbers from the kernel's uapi headers (asm/unistd_64.h; asm-generic/unistd.h for
# aarch64, which has no legacy path calls such as open, stat or chmod).
X86_64 = {
    "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6,
    "poll": 7, "lseek": 8, "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12,
    "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15, "ioctl": 16,
    "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20, "access": 21, "pipe": 22,
    "select": 23, "sched_yield": 24, "mremap": 25, "madvise": 28, "dup": 32, "dup2": 33,
    "nanosleep": 35, "getitimer": 36, "alarm": 37, "setitimer": 38, "getpid": 39,
    "sendfile": 40, "sendto": 44, "recvfrom": 45, "getsockname": 51, "getsockopt": 55,
    "exit": 60, "kill": 62, "uname": 63, "fcntl": 72, "fsync": 74, "fdatasync": 75,
    "truncate": 76, "ftruncate": 77, "getcwd": 79, "chdir": 80, "fchdir": 81, "rename": 82,
    "mkdir": 83, "rmdir": 84, "creat": 85, "link": 86, "unlink": 87, "symlink": 88,
    "readlink": 89, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94,
    "umask": 95, "gettimeofday": 96, "getrlimit": 97, "getrusage": 98, "times": 100,
    "getuid": 102, "getgid": 104, "geteuid": 107, "getegid": 108, "getppid": 110,
    "getpgrp": 111, "getgroups": 115, "getresuid": 118, "getresgid": 120, "getpgid": 121,
    "getsid": 124, "capget": 125, "rt_sigpending": 127, "rt_sigtimedwait": 128,
    "rt_sigqueueinfo": 129, "rt_sigsuspend": 130, "sigaltstack": 131, "utime": 132,
    "statfs": 137, "fstatfs": 138, "getpriority": 140, "setpriority": 141,
    "sched_setparam": 142, "sched_getparam": 143, "sched_setscheduler": 144,
    "sched_getscheduler": 145, "prctl": 157, "setrlimit": 160, "gettid": 186,
    "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "getxattr": 191, "lgetxattr": 192,
    "fgetxattr": 193, "listxattr": 194, "llistxattr": 195, "flistxattr": 196,
    "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "tkill": 200, "time": 201,
    "futex": 202, "sched_setaffinity": 203, "sched_getaffinity": 204, "getdents64": 217,
    "restart_syscall": 219, "clock_gettime": 228, "clock_getres": 229,
    "clock_nanosleep": 230, "exit_group": 231, "tgkill": 234, "utimes": 235, "openat": 257,
    "mkdirat": 258, "fchownat": 260, "futimesat": 261, "newfstatat": 262, "unlinkat": 263,
    "renameat": 264, "linkat": 265, "symlinkat": 266, "readlinkat": 267, "fchmodat": 268,
    "faccessat": 269, "pselect6": 270, "ppoll": 271, "utimensat": 280, "fallocate": 285,
    "dup3": 292, "pipe2": 293, "rt_tgsigqueueinfo": 297, "prlimit64": 302,
    "sched_setattr": 314, "sched_getattr": 315, "renameat2": 316, "getrandom": 318,
    "copy_file_range": 326, "statx": 332, "faccessat2": 439, "fchmodat2": 452,
}
AARCH64 = {
    "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "getxattr": 8, "lgetxattr": 9,
    "fgetxattr": 10, "listxattr": 11, "llistxattr": 12, "flistxattr": 13, "removexattr": 14,
    "lremovexattr": 15, "fremovexattr": 16, "getcwd": 17, "dup": 23, "dup3": 24,
    "fcntl": 25, "ioctl": 29, "mkdirat": 34, "unlinkat": 35, "symlinkat": 36, "linkat": 37,
    "renameat": 38, "statfs": 43, "fstatfs": 44, "truncate": 45, "ftruncate": 46,
    "fallocate": 47, "faccessat": 48, "chdir": 49, "fchdir": 50, "fchmod": 52,
    "fchmodat": 53, "fchownat": 54, "fchown": 55, "openat": 56, "close": 57, "pipe2": 59,
    "getdents64": 61, "lseek": 62, "read": 63, "write": 64, "readv": 65, "writev": 66,
    "pread64": 67, "pwrite64": 68, "sendfile": 71, "pselect6": 72, "ppoll": 73,
    "readlinkat": 78, "newfstatat": 79, "fstat": 80, "fsync": 82, "fdatasync": 83,
    "utimensat": 88, "capget": 90, "exit": 93, "exit_group": 94, "futex": 98,
    "nanosleep": 101, "getitimer": 102, "setitimer": 103, "clock_gettime": 113,
    "clock_getres": 114, "clock_nanosleep": 115, "sched_setparam": 118,
    "sched_setscheduler": 119, "sched_getscheduler": 120, "sched_getparam": 121,
    "sched_setaffinity": 122, "sched_getaffinity": 123, "sched_yield": 124,
    "restart_syscall": 128, "kill": 129, "tkill": 130, "tgkill": 131, "sigaltstack": 132,
    "rt_sigsuspend": 133, "rt_sigaction": 134, "rt_sigprocmask": 135, "rt_sigpending": 136,
    "rt_sigtimedwait": 137, "rt_sigqueueinfo": 138, "rt_sigreturn": 139, "setpriority": 140,
    "getpriority": 141, "getresuid": 148, "getresgid": 150, "times": 153, "getpgid": 155,
    "getsid": 156, "getgroups": 158, "uname": 160, "getrlimit": 163, "setrlimit": 164,
    "getrusage": 165, "umask": 166, "prctl": 167, "gettimeofday": 169, "getpid": 172,
    "getppid": 173, "getuid": 174, "geteuid": 175, "getgid": 176, "getegid": 177,
    "gettid": 178, "getsockname": 204, "sendto": 206, "recvfrom": 207, "getsockopt": 209,
    "brk": 214, "munmap": 215, "mremap": 216, "mmap": 222, "mprotect": 226, "madvise": 233,
    "rt_tgsigqueueinfo": 240, "prlimit64": 261, "sched_setattr": 274, "sched_getattr": 275,
    "renameat2": 276, "getrandom": 278, "copy_file_range": 285, "statx": 291,
    "faccessat2": 439, "fchmodat2": 452,
}
ARCHES = {"x86_64": (0xC000003E, X86_64), "aarch64": (0xC00000B7, AARCH64)}
