# A forked child's run, from the zygote's side: its log passed on, its end or its timeout,
# everything it left behind killed and reaped (the zygote is a child subreaper), the private
# tmpfs mounts emptied, and what it reported read.
import os
import select
import signal
import time

from evootter_zygote import report
from evootter_zygote.protocol import frame


def _nspids(pid):
    """A process's pids as /proc/PID/status lists them ("NSpid:"), outermost namespace first;
    `[pid]` where the kernel does not say."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return [int(p) for p in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return [pid]


# /proc is the one the zygote was started with: in a worker's pid namespace it is the host's,
# whose pids (in .../children too) are not the ones kill() takes in here. Each child's pid is
# read at the zygote's own namespace level instead; killing the host's numbers killed nothing,
# and a test's background process outlived it into the next tests' runs.
_LEVEL = len(_nspids("self")) - 1


def _children():
    pids = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                pids.extend(int(p) for p in f.read().split())
    except OSError:
        pass
    local = []
    for p in pids:
        ns = _nspids(p)
        local.append(ns[_LEVEL] if len(ns) > _LEVEL else ns[-1])
    return local


def kill_all():
    """Kills and reaps every child (the execution's leftovers are reparented here)."""
    for _ in range(10000):
        kids = _children()
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reaped = False
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                break
            reaped = True
        if not reaped:
            # Killed ones take a moment to become reapable: no busy loop while they do.
            time.sleep(0.001)


def _clean(dirs):
    """Empties the private tmpfs mounts (/dev/shm, /run) a cold run would get fresh."""
    for d in dirs:
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for e in entries:
            p = os.path.join(d, e)
            try:
                if os.path.isdir(p) and not os.path.islink(p):
                    import shutil

                    shutil.rmtree(p, ignore_errors=True)
                else:
                    os.unlink(p)
            except OSError:
                pass


# A run's log is read in batches: a pytest run writes it in dozens of small writes (its
# output is unbuffered: about 40 a run on the bundled examples), and reading each as it came
# woke the zygote, and evootter after it, as often. So the log is looked at once a tick while
# it comes slowly, and at once again after a read that found much waiting, so that a test that
# writes fast never waits long on a full pipe; the rest is read when the child ends. Only when
# the log arrives changes, never what it holds (tests/warm.rs:
# a_test_that_writes_much_is_read_as_fast_as_it_writes).
_LOG_TICK = 0.025
_LOG_MUCH = 16384


def supervise(pid, log_r, mods_r, timeout, clean):
    """Runs the child to its end or its timeout, passing its log on in batches; returns how
    it ended and what it reported (read as it is written: a report may exceed a pipe's
    buffer)."""
    deadline = time.monotonic() + timeout
    pidfd = os.pidfd_open(pid)
    ending = None
    status = None
    open_log = True
    reported = bytearray()

    def take_report():
        data = os.read(mods_r, 65536)
        if data and len(reported) < report.REPORT_BYTES:
            reported.extend(data)
        return data

    open_report = True
    next_log = time.monotonic() + _LOG_TICK
    while status is None:
        now = time.monotonic()
        left = deadline - now
        if left <= 0:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            kill_all()
            ending = {"timeout": True}
            break
        watch_log = open_log and now >= next_log
        fds = [pidfd] + ([log_r] if watch_log else []) + ([mods_r] if open_report else [])
        # Not looking at the log: wake at the next tick to look again.
        wait = min(left, next_log - now) if open_log and not watch_log else left
        ready, _, _ = select.select(fds, [], [], wait)
        if log_r in ready:
            data = os.read(log_r, 65536)
            if data:
                frame(b"L", data)
                if len(data) < _LOG_MUCH:
                    next_log = time.monotonic() + _LOG_TICK
            else:
                open_log = False
        if mods_r in ready and not take_report():
            open_report = False
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    if ending is None:
        # The test's leftovers may still hold the log open: they go first.
        kill_all()
        if os.WIFSIGNALED(status):
            ending = {"signal": os.WTERMSIG(status)}
        else:
            ending = {"exit": os.WEXITSTATUS(status)}
    # Every writer is dead: the rest of the log and of the report.
    while True:
        data = os.read(log_r, 65536)
        if not data:
            break
        frame(b"L", data)
    os.close(log_r)
    while open_report and take_report():
        pass
    os.close(mods_r)
    _clean(clean)
    # A child killed at its timeout reports nothing worth learning.
    return ending, bytes(reported) if "timeout" not in ending else b""
