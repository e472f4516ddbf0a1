# A module the zygote imported is what its file said then: a child inherits it as it was, where
# a cold run would read the file again. So the zygote watches (inotify) every directory a
# module it holds came from; when anything there changes (a file edited, added, removed,
# renamed: a package upgraded, a library patched by hand), it starts over, by executing itself
# again with the request it just read, before running that request. Nothing a run does
# changes those directories (a run's interpreter writes no bytecode). Where inotify is not
# to be had (no instance left), nothing is watched and a change is seen only when the zygote
# is next started.
import os
import struct
import sys

from evootter_zygote import state
from evootter_zygote.linux import IN_CLOEXEC, IN_NONBLOCK, libc

# Modified, attributes, closed after writing, moved out, moved in, created, deleted, the
# directory itself deleted or moved.
_WATCH_MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800


class Watch:
    def __init__(self):
        self.fd = None
        # Watch descriptor -> directory; the module files already looked at.
        self.dirs = {}
        self.seen = set()

    def add_modules(self):
        """Watches the directories of every module held that came from the interpreter's
        library or site-packages (the copy's own are never held)."""
        if self.fd is None:
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:
                return
            self.fd = fd
        # Only modules not looked at before: this runs after every learning.
        files = {f for f in (getattr(m, "__file__", None) for m in list(sys.modules.values())) if isinstance(f, str)}
        watched = set(self.dirs.values())
        for f in files - self.seen:
            self.seen.add(f)
            for d in {os.path.dirname(f), os.path.dirname(os.path.realpath(f))} - watched:
                if not (os.path.realpath(d) + "/").startswith(state.ROOTS):
                    continue
                wd = libc.inotify_add_watch(self.fd, os.fsencode(d), _WATCH_MASK)
                if wd >= 0:
                    self.dirs[wd] = d
                    watched.add(d)

    def changed(self):
        """What changed since the last look (a path, for the zygote's own log), or None."""
        if self.fd is None:
            return None
        try:
            events = os.read(self.fd, 65536)
        except BlockingIOError:
            return None
        if len(events) < 16:
            return None
        wd, _mask, _cookie, size = struct.unpack("iIII", events[:16])
        name = events[16 : 16 + size].rstrip(b"\0").decode(errors="replace")
        return os.path.join(self.dirs.get(wd, "?"), name)


WATCH = Watch()


def start_over(clean, pending):
    """Executes the zygote again, as evootter started it (the launcher, with the same
    arguments), with the bytes read but not yet served (the request in hand) handed over in
    a memory file; it sends no second ready frame."""
    fd = os.memfd_create("evootter-pending", 0)
    os.write(fd, pending)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    env = dict(state.START_ENV)
    env["EVOOTTER_ZYGOTE_CLEAN"] = ":".join(clean)
    env["EVOOTTER_ZYGOTE_NETNS"] = "1" if state.NETNS_PER_RUN else "0"
    env["EVOOTTER_ZYGOTE_PENDING"] = str(fd)
    argv = getattr(sys, "orig_argv", None) or [sys.executable, "-B"] + sys.argv
    os.execve(sys.executable, [sys.executable] + argv[1:], env)
