# The Linux calls the os module does not offer (prctl, unshare, inotify), through libc, and
# the constants they take.
import ctypes

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 1
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
libc = ctypes.CDLL(None, use_errno=True)
