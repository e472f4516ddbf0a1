# evootter's warm executor: one long-lived interpreter per worker (the zygote) that has
# imported pytest and its plugins, and forks once per execution. The child runs pytest
# in-process with the arguments and environment a cold `python -B -m pytest` gets, so its log,
# junit report and exit status are the same; only the interpreter's start-up is saved.
#
# Started by evootter in the worker's copy, inside the same sandbox a cold run gets, with the
# run's environment. Protocol (stdin: one JSON request a line; stdout: frames of one type byte,
# a 4-byte big-endian length, and the payload):
#   R {"python": ..., "from_copy": [modules]}   ready (modules imported from the copy: refused)
#   L <bytes>                                   a chunk of the running execution's log
#   E {"exit": N} | {"signal": N} | {"timeout": true}   the execution's end
# The zygote never imports the repository's own modules, never writes to its own stdout
# otherwise, and is a child subreaper: whatever an execution leaves behind is killed before
# the end frame is sent.
import os
import sys

# `python -m pytest` puts the working directory first on sys.path; a script would put its
# own directory there instead.
sys.path[0] = os.getcwd()

import ctypes  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import runpy  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import sysconfig  # noqa: E402
import time  # noqa: E402

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 1
_libc = ctypes.CDLL(None, use_errno=True)


def _preload():
    """pytest, its built-in plugins and the installed plugins, as a run would import them."""
    import pytest  # noqa: F401
    import _pytest.config

    for name in list(_pytest.config.default_plugins) + ["pytester", "legacypath"]:
        try:
            __import__("_pytest." + name)
        except Exception:
            pass
    import _pytest.junitxml  # noqa: F401
    import _pytest.assertion.rewrite  # noqa: F401

    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group="pytest11"):
            try:
                ep.load()
            except Exception:
                pass
    except Exception:
        pass


def _outside_roots():
    """Where modules may come from to be imported before the fork: the interpreter's own
    library and site-packages, never the copy."""
    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            roots.add(os.path.realpath(p) + "/")
    try:
        import site

        for p in site.getsitepackages() + [site.getusersitepackages()]:
            roots.add(os.path.realpath(p) + "/")
    except Exception:
        pass
    return tuple(roots)


class _RefuseCopy:
    """A meta path finder that makes any import from the copy fail while the zygote learns
    modules: a library that imports the repository is not preloaded."""

    def __init__(self, copy):
        self.prefix = copy.rstrip("/") + "/"

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None:
            return None
        places = [spec.origin or ""] + list(spec.submodule_search_locations or [])
        if any(os.path.realpath(p).startswith(self.prefix) for p in places if p):
            raise ImportError(f"{name} is the repository's")
        return None


def _learn(names, copy):
    """Imports, for the next executions, the modules an execution imported from outside
    the copy (third-party libraries the tests use)."""
    import logging
    import warnings

    # What an import may change that a cold run would have seen only from the test's own
    # import on: put back after learning.
    saved_filters = list(warnings.filters)
    saved_path = list(sys.path)
    saved_env = dict(os.environ)
    root = logging.getLogger()
    saved_log = (list(root.handlers), root.level)
    guard = _RefuseCopy(copy)
    sys.meta_path.insert(0, guard)
    try:
        for name in names:
            if name in sys.modules:
                continue
            try:
                __import__(name)
            except BaseException:
                pass
    finally:
        sys.meta_path.remove(guard)
        warnings.filters[:] = saved_filters
        warnings._filters_mutated()
        sys.path[:] = saved_path
        if dict(os.environ) != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)
        root.handlers[:] = saved_log[0]
        root.setLevel(saved_log[1])
    gc.freeze()


def _from_copy(copy):
    found = []
    prefix = copy.rstrip("/") + "/"
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and os.path.abspath(f).startswith(prefix):
            found.append(name)
    return sorted(found)


CTRL_IN = os.dup(0)
CTRL_OUT = os.dup(1)


def _frame(kind, payload):
    data = kind + struct.pack(">I", len(payload)) + payload
    view = memoryview(data)
    while view:
        n = os.write(CTRL_OUT, view)
        view = view[n:]


def _children():
    pids = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                pids.extend(int(p) for p in f.read().split())
    except OSError:
        pass
    return pids


def _kill_all():
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
        if not kids and not reaped:
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


def _serve(copy, clean):
    buf = b""
    while True:
        _ZYGOTE_MODULES.clear()
        _ZYGOTE_MODULES.update(sys.modules)
        while b"\n" not in buf:
            chunk = os.read(CTRL_IN, 65536)
            if not chunk:
                os._exit(0)
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        req = json.loads(line)
        log_r, log_w = os.pipe()
        mods_r, mods_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(log_r)
            os.close(mods_r)
            return req, log_w, mods_w
        os.close(log_w)
        os.close(mods_w)
        _supervise(pid, log_r, float(req["timeout"]), clean)
        learned = b""
        while True:
            chunk = os.read(mods_r, 65536)
            if not chunk:
                break
            learned += chunk
        os.close(mods_r)
        names = [n for n in learned.decode(errors="replace").split("\n") if n]
        if names:
            _learn(names, copy)


def _supervise(pid, log_r, timeout, clean):
    deadline = time.monotonic() + timeout
    pidfd = os.pidfd_open(pid)
    ending = None
    status = None
    open_log = True
    while status is None:
        left = deadline - time.monotonic()
        if left <= 0:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            _kill_all()
            ending = {"timeout": True}
            break
        fds = [pidfd] + ([log_r] if open_log else [])
        ready, _, _ = select.select(fds, [], [], left)
        if log_r in ready:
            data = os.read(log_r, 65536)
            if data:
                _frame(b"L", data)
            else:
                open_log = False
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    if ending is None:
        # The test's leftovers may still hold the log open: they go first.
        _kill_all()
        if os.WIFSIGNALED(status):
            ending = {"signal": os.WTERMSIG(status)}
        else:
            ending = {"exit": os.WEXITSTATUS(status)}
    # Every writer is dead: the rest of the log.
    while True:
        data = os.read(log_r, 65536)
        if not data:
            break
        _frame(b"L", data)
    os.close(log_r)
    _clean(clean)
    _frame(b"E", json.dumps(ending).encode())


_ZYGOTE_MODULES = set()
_ROOTS = ()


def _report_modules(mods_w):
    """In the child, as pytest ends: the modules it imported from the interpreter's library
    and site-packages, for the zygote to have ready next time."""
    try:
        names = []
        for name, mod in list(sys.modules.items()):
            if name in _ZYGOTE_MODULES or name.startswith("__"):
                continue
            f = getattr(mod, "__file__", None)
            if isinstance(f, str) and os.path.realpath(f).startswith(_ROOTS):
                names.append(name)
        os.write(mods_w, "\n".join(sorted(names)).encode())
    except BaseException:
        pass
    finally:
        try:
            os.close(mods_w)
        except OSError:
            pass


_NETNS_PER_RUN = False


def _fresh_network():
    """A network namespace of the run's own with its loopback up, as a cold run gets: what
    one run leaves in the network (a port in TIME_WAIT) cannot reach the next. Where the
    zygote may not make one (no privilege), runs share the worker's."""
    if _libc.unshare(CLONE_NEWNET) != 0:
        return
    import fcntl
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14s", b"lo", 0, bytes(14))
        flags = struct.unpack("16sH", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req)[:18])[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, bytes(14)))


def _become_run(req, log_w):
    """In the child: the process a cold run's interpreter would be."""
    os.setpgid(0, 0)
    if _NETNS_PER_RUN:
        _fresh_network()
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        os._exit(1)
    os.close(CTRL_IN)
    os.close(CTRL_OUT)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(log_w, 1)
    os.dup2(log_w, 2)
    os.close(log_w)
    os.environ.clear()
    os.environ.update(req["env"])
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None
    sys.argv = [""] + req["args"]


def main():
    copy = os.getcwd()
    clean = [d for d in os.environ.pop("EVOOTTER_ZYGOTE_CLEAN", "").split(":") if d]
    global _NETNS_PER_RUN
    _NETNS_PER_RUN = os.environ.pop("EVOOTTER_ZYGOTE_NETNS", "") == "1"
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    _preload()
    global _ROOTS
    _ROOTS = tuple(r for r in _outside_roots() if not r.startswith(copy.rstrip("/") + "/"))
    # What exists now is never garbage: the children's collections skip it.
    gc.freeze()
    _frame(
        b"R",
        json.dumps(
            {"python": sys.version.split()[0], "from_copy": _from_copy(copy)}
        ).encode(),
    )
    return _serve(copy, clean)


_req, _log_w, _mods_w = main()
_become_run(_req, _log_w)
del _req, _log_w
try:
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)
finally:
    _report_modules(_mods_w)
