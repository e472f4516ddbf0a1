# evootter's warm executor: one long-lived interpreter per worker (the zygote) that has
# imported pytest and its plugins, and forks once per execution. The child runs pytest
# in-process with the arguments and environment a cold `python -B -m pytest` gets, so its log,
# junit report and exit status are the same; only the interpreter's start-up is saved.
#
# Started by evootter in the worker's copy, inside the same sandbox a cold run gets, with the
# run's environment. Protocol (stdin: one JSON request a line, followed by `blob` bytes when
# it names them; stdout: frames of one type byte, a 4-byte big-endian length, the payload):
#   R {"python": ..., "from_copy": [modules]}   ready (modules imported from the copy: refused)
#   L <bytes>                                   a chunk of the running execution's log
#   C <bytes>                                   what a request asked to collect
#   E {"exit": N} | {"signal": N} | {"timeout": true}   the execution's end
#     | {"ok": true} | {"error": "..."}          the end of a `list` or `restore` request
# Requests: {"args", "env", "timeout"} runs pytest. In a container (the Docker backend),
# where no other process can reach the copy between runs, a run may also carry `stage` (the
# staged files as a tar blob, the run directory made fresh, files removed, the mark touched)
# and `collect` (files to send back, a `find`-style listing of the copy, SHA-256 sums of what
# changed, what to delete), and two more requests put the copy back and list it:
# {"op": "restore", ...} and {"op": "list"}. One request is then one round trip over one
# open stream instead of a `docker exec` per step.
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
import hashlib  # noqa: E402
import json  # noqa: E402
import marshal  # noqa: E402
import runpy  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import stat  # noqa: E402
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


# What the installed plugins' entry points gave (pytest registers them during its
# configuration, after `get_config`).
_ENTRY_PLUGINS = []


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
                _ENTRY_PLUGINS.append(ep.load())
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
    _warm_inspect()
    _scan_plugin_modules([e[0] for e in list(_FIXTURE_SCANS.values())])
    _WATCH.add_modules()
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


# A module the zygote imported is what its file said then: a child inherits it as it was, where
# a cold run would read the file again. So the zygote watches (inotify) every directory a
# module it holds came from; when anything there changes (a file edited, added, removed,
# renamed: a package upgraded, a library patched by hand), it starts over, by executing itself
# again with the request it just read, before running that request. Nothing a run does
# changes those directories (a run's interpreter writes no bytecode). Where inotify is not
# to be had (no instance left), nothing is watched and a change is seen only when the zygote
# is next started.
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
# Modified, attributes, closed after writing, moved out, moved in, created, deleted, the
# directory itself deleted or moved.
_WATCH_MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800


class _Watch:
    def __init__(self):
        self.fd = None
        # Watch descriptor -> directory; the module files already looked at.
        self.dirs = {}
        self.seen = set()

    def add_modules(self):
        """Watches the directories of every module held that came from the interpreter's
        library or site-packages (the copy's own are never held)."""
        if self.fd is None:
            fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:
                return
            self.fd = fd
        # Only modules not looked at before: this runs after every learning.
        files = {f for f in (getattr(m, "__file__", None) for m in list(sys.modules.values())) if isinstance(f, str)}
        watched = set(self.dirs.values())
        for f in files - self.seen:
            self.seen.add(f)
            for d in {os.path.dirname(f), os.path.dirname(os.path.realpath(f))} - watched:
                if not (os.path.realpath(d) + "/").startswith(_ROOTS):
                    continue
                wd = _libc.inotify_add_watch(self.fd, os.fsencode(d), _WATCH_MASK)
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


_WATCH = _Watch()


def _start_over(clean, pending):
    """Executes the zygote again, as evootter started it, with the bytes read but not yet
    served (the request in hand) handed over in a memory file; it sends no second ready frame."""
    fd = os.memfd_create("evootter-pending", 0)
    os.write(fd, pending)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    env = dict(_START_ENV)
    env["EVOOTTER_ZYGOTE_CLEAN"] = ":".join(clean)
    env["EVOOTTER_ZYGOTE_NETNS"] = "1" if _NETNS_PER_RUN else "0"
    env["EVOOTTER_ZYGOTE_PENDING"] = str(fd)
    argv = getattr(sys, "orig_argv", None) or [sys.executable, "-B"] + sys.argv
    os.execve(sys.executable, [sys.executable] + argv[1:], env)


def _read_request(buf):
    """The next request line and the blob after it; the zygote ends with its input."""
    while b"\n" not in buf:
        chunk = os.read(CTRL_IN, 65536)
        if not chunk:
            os._exit(0)
        buf += chunk
    line, buf = buf.split(b"\n", 1)
    req = json.loads(line)
    size = int(req.get("blob", 0))
    while len(buf) < size:
        chunk = os.read(CTRL_IN, max(65536, size - len(buf)))
        if not chunk:
            os._exit(0)
        buf += chunk
    return req, buf[:size], buf[size:]


def _serve(copy, clean, buf):
    while True:
        _ZYGOTE_MODULES.clear()
        _ZYGOTE_MODULES.update(sys.modules)
        req, blob, buf = _read_request(buf)
        changed = _WATCH.changed()
        if changed is not None:
            sys.stderr.write(f"evootter zygote: {changed} changed; starting over\n")
            sys.stderr.flush()
            _start_over(clean, json.dumps(req).encode() + b"\n" + blob + buf)
        op = req.get("op", "run")
        if op != "run":
            try:
                _frame(b"C", _list(copy, req.get("list")) if op == "list" else _restore(copy, req, blob))
                _frame(b"E", b'{"ok": true}')
            except Exception as e:
                _frame(b"E", json.dumps({"error": f"{type(e).__name__}: {e}"}).encode())
            continue
        if "stage" in req:
            _stage(copy, req["stage"], blob)
        template = _config_template(req)
        log_r, log_w = os.pipe()
        mods_r, mods_w = os.pipe()
        # What the zygote compiled itself (learning, a template) is not a child's to report.
        del _NEW_COMPILES[:]
        pid = os.fork()
        if pid == 0:
            os.close(log_r)
            os.close(mods_r)
            return req, log_w, mods_w, template
        os.close(log_w)
        os.close(mods_w)
        ending, learned = _supervise(pid, log_r, mods_r, float(req["timeout"]), clean)
        if "collect" in req:
            _frame(b"C", _collect(copy, req["collect"]))
        _frame(b"E", json.dumps(ending).encode())
        # The report: module names, NUL, the new patterns as JSON (never a raw NUL), NUL,
        # what else the child made that the zygote may keep, as marshal data.
        mods, _, rest = learned.partition(b"\0")
        patterns, _, kept = rest.partition(b"\0")
        names = [n for n in mods.decode(errors="replace").split("\n") if n]
        if names:
            _learn(names, copy)
        if patterns:
            _learn_patterns(patterns)
        if kept:
            _learn_kept(kept)


def _remove(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            import shutil

            shutil.rmtree(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


def _extract(copy, blob):
    """Unpacks a tar of files into the copy, as `tar -xf -` run there by root would: modes,
    owners and times from the archive, missing directories made."""
    if blob:
        import io
        import tarfile

        with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
            tar.extractall(copy)


def _stage(copy, stage, blob):
    """Before a run: the staged files in place, the run directory fresh, the files the run
    must not see removed, then the mark every later change is newer than."""
    _extract(copy, blob)
    for d in stage.get("fresh", []):
        _remove(d)
    for d in stage.get("mkdir", []):
        os.makedirs(d, exist_ok=True)
    for rel in stage.get("remove", []):
        try:
            os.unlink(os.path.join(copy, rel))
        except OSError:
            pass
    mark = stage["mark"]
    os.makedirs(os.path.dirname(mark), exist_ok=True)
    with open(mark, "wb"):
        pass
    os.utime(mark)


_KINDS = (
    (stat.S_ISREG, "f"),
    (stat.S_ISDIR, "d"),
    (stat.S_ISLNK, "l"),
    (stat.S_ISFIFO, "p"),
    (stat.S_ISSOCK, "s"),
    (stat.S_ISCHR, "c"),
    (stat.S_ISBLK, "b"),
)


def _stamp(rel, st):
    """One entry as `find -printf '%y %m %s %T@ %C@ %i %p\\0%l\\0'` prints it (times to the
    nanosecond, which is all the comparison needs: every listing of a zygote's copy comes from
    here)."""
    kind = next((k for test, k in _KINDS if test(st.st_mode)), "U")
    head = "%s %o %d %d.%09d %d.%09d %d " % (
        kind,
        st.st_mode & 0o7777,
        st.st_size,
        st.st_mtime_ns // 10**9,
        st.st_mtime_ns % 10**9,
        st.st_ctime_ns // 10**9,
        st.st_ctime_ns % 10**9,
        st.st_ino,
    )
    link = os.readlink(rel) if kind == "l" else b""
    return head.encode() + rel + b"\0" + link + b"\0"


def _walk(rel, out, changed, since):
    """Lists `rel` (bytes, `./`-relative to the copy) and, for a directory, all below it;
    notes the files whose status changed at or after `since`."""
    try:
        st = os.lstat(rel)
    except OSError:
        return
    out.append(_stamp(rel, st))
    if stat.S_ISREG(st.st_mode) and since is not None and st.st_ctime_ns >= since:
        changed.append(rel)
    if stat.S_ISDIR(st.st_mode):
        try:
            names = sorted(os.listdir(rel))
        except OSError:
            return
        for name in names:
            _walk(rel + b"/" + name, out, changed, since)


def _list(copy, rels=None, since=None):
    """The listing of the whole copy (or of `rels` and below), and the files changed since."""
    out, changed = [], []
    if rels is None:
        for name in sorted(os.listdir(b".")):
            _walk(b"./" + name, out, changed, since)
    else:
        for rel in rels:
            _walk(b"./" + os.fsencode(rel), out, changed, since)
    return b"".join(out) if since is None else (b"".join(out), changed)


def _sums(rels):
    """`sha256sum` lines for the files that can be read."""
    import hashlib

    lines = []
    for rel in rels:
        try:
            with open(rel, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            continue
        if b"\\" in rel or b"\n" in rel:
            rel = rel.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")
            lines.append(b"\\" + digest.encode() + b"  " + rel + b"\n")
        else:
            lines.append(digest.encode() + b"  " + rel + b"\n")
    return b"".join(lines)


def _collect(copy, c):
    """After a run: the files asked for, the listing, the sums of the staged files and of every
    file changed since the mark, each section ended by `sep`; then what was made only for
    staging is deleted."""
    sep = c["sep"].encode()
    parts = []
    for path in c.get("cat", []):
        try:
            with open(path, "rb") as f:
                parts.append(f.read())
        except OSError:
            parts.append(b"")
    try:
        since = os.stat(c["mark"]).st_mtime_ns
    except OSError:
        since = 0
    listing, changed = _list(copy, since=since)
    parts.append(listing)
    staged = [b"./" + os.fsencode(r) for r in c.get("sums", [])]
    parts.append(_sums(changed + [r for r in staged if r not in changed]))
    outside = c.get("outside")
    if outside is not None:
        # A container's writable places outside the copy: what the run left there is named
        # and removed, so the next run starts from the image.
        keep = set(outside.get("keep", []))
        written = []
        for d in outside.get("dirs", []):
            try:
                names = sorted(os.listdir(d))
            except OSError:
                continue
            for n in names:
                p = os.path.join(d, n)
                if p in keep:
                    continue
                written.append(os.fsencode(p))
                _remove(p)
        parts.append(b"\0".join(written))
    for rel in c.get("rm", []):
        _remove(os.path.join(copy, rel))
    return sep.join(parts) + sep


def _restore(copy, r, blob):
    """Puts the copy back: deletes what the run made or changed, unpacks the repository's
    version of what it changed, sets directory modes back; answers with a listing of what was
    put back."""
    for rel in r.get("rm", []):
        _remove(os.path.join(copy, rel))
    _extract(copy, blob)
    for rel, mode in r.get("chmod", []):
        os.chmod(os.path.join(copy, rel), mode)
    return _list(copy, r.get("list", []))


# A run's log is read in batches: a pytest run writes it in dozens of small writes (its
# output is unbuffered: about 40 a run on the bundled examples), and reading each as it came
# woke the zygote, and evootter after it, as often. So the log is looked at once a tick while
# it comes slowly, and at once again after a read that found much waiting, so that a test that
# writes fast never waits long on a full pipe; the rest is read when the child ends. Only when
# the log arrives changes, never what it holds.
_LOG_TICK = 0.025
_LOG_MUCH = 16384


def _supervise(pid, log_r, mods_r, timeout, clean):
    """Runs the child to its end or its timeout, passing its log on in batches; returns how
    it ended and what it reported (read as it is written: a report may exceed a pipe's
    buffer)."""
    deadline = time.monotonic() + timeout
    pidfd = os.pidfd_open(pid)
    ending = None
    status = None
    open_log = True
    report = bytearray()

    def take_report():
        data = os.read(mods_r, 65536)
        if data and len(report) < _REPORT_BYTES:
            report.extend(data)
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
            _kill_all()
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
                _frame(b"L", data)
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
        _kill_all()
        if os.WIFSIGNALED(status):
            ending = {"signal": os.WTERMSIG(status)}
        else:
            ending = {"exit": os.WEXITSTATUS(status)}
    # Every writer is dead: the rest of the log and of the report.
    while True:
        data = os.read(log_r, 65536)
        if not data:
            break
        _frame(b"L", data)
    os.close(log_r)
    while open_report and take_report():
        pass
    os.close(mods_r)
    _clean(clean)
    # A child killed at its timeout reports nothing worth learning.
    return ending, bytes(report) if "timeout" not in ending else b""


_ZYGOTE_MODULES = set()
_ROOTS = ()

# pytest's first step, `get_config` (a plugin manager with every built-in plugin registered,
# less those `-p no:NAME` blocks), depends on nothing but those arguments and PYTEST_DEBUG,
# and takes about a sixth of an in-process run. It is built here once per set of blocked
# plugins and never used by the zygote itself: every child starts from its own untouched
# copy, as if it had built it.
_TEMPLATES = {}


def _blocked(args):
    """The `-p no:NAME` arguments, read as pytest's `consider_preparse` reads them."""
    out = []
    i, n = 0, len(args)
    while i < n:
        opt = args[i]
        i += 1
        if opt == "-p":
            if i >= n:
                break
            parg = args[i]
            i += 1
        elif opt.startswith("-p"):
            parg = opt[2:]
        else:
            continue
        parg = parg.strip()
        if parg.startswith("no:"):
            out.append(parg)
    return tuple(out)


def _run_env(req):
    """The environment a run gets: the whole of it from the request, or (`env_base`) only
    what it sets over the zygote's own, which in a container holds what the image and its
    activation gave."""
    env = dict(_START_ENV) if req.get("env_base") else {}
    env.update(req["env"])
    return env


_PROG = []


def _pytest_prog(args):
    """The name pytest 9 gives itself in its usage text, after how it was started (a child
    runs `pytest/__main__.py` through runpy); None for older pytests, which take no name.
    Looked up once: it depends on how the child starts, which never changes."""
    if not _PROG:
        import importlib.util

        import _pytest.config as pc

        prog = None
        if hasattr(pc, "_get_prog_name"):
            origin = importlib.util.find_spec("pytest.__main__").origin
            prog = pc._get_prog_name([origin] + args)
        _PROG.append(prog)
    return _PROG[0]


def _config_template(req):
    """The prepared `get_config` result for this run's arguments, or None (pytest's own
    runs then, as without a template)."""
    args = list(req["args"])
    if _run_env(req).get("PYTEST_DEBUG") or os.environ.get("PYTEST_DEBUG"):
        return None
    try:
        import _pytest.config as pc

        prog = _pytest_prog(args)
    except Exception:
        return None
    key = (_blocked(args), prog)
    if key not in _TEMPLATES:
        try:
            kw = {} if prog is None else {"prog": prog}
            config = pc.get_config(list(args), **kw)
            if _reuse_parsers():
                # Built now, for the options the template has: a child whose plugins add
                # none starts with it.
                config._parser._getparser()
            _TEMPLATES[key] = config
        except Exception:
            _TEMPLATES[key] = None
        if _TEMPLATES[key] is not None:
            _scan_plugin_modules(list(_TEMPLATES[key].pluginmanager.get_plugins()) + _ENTRY_PLUGINS)
        gc.freeze()
    return key, _TEMPLATES[key]


def _reuse_parsers():
    """pytest before 8 builds its whole argparse parser anew every time it parses (six times
    a run); the options only ever grow, and a parser is only read while parsing. So a parser
    is reused while its options are what they were when it was built. Returns whether this
    pytest has that method (newer ones grow one parser as options are added)."""
    try:
        from _pytest.config import argparsing
    except Exception:
        return False
    cls = argparsing.Parser
    build = cls.__dict__.get("_getparser")
    if build is None or getattr(build, "_evootter", False):
        return build is not None

    def signature(self):
        return (
            id(self.extra_info),
            getattr(self, "prog", None),
            tuple((id(g), len(g.options)) for g in self._groups),
            len(self._anonymous.options),
        )

    def _getparser(self):
        try:
            sig = signature(self)
        except Exception:
            return build(self)
        kept = self.__dict__.get("_evootter_parser")
        if kept is not None and kept[0] == sig:
            return kept[1]
        parser = build(self)
        self.__dict__["_evootter_parser"] = (sig, parser)
        return parser

    _getparser._evootter = True
    cls._getparser = _getparser
    return True


# pytest's fixture manager looks at every attribute of every plugin module for fixtures at each
# session start (a tenth to a sixth of a warm run, most of it on names that are plainly not
# fixtures: imported modules, classes, functions, constants). For the plugin modules the
# zygote holds, the names worth looking at are found once; the fixture manager's `dir()` gets
# only those, in the order `dir()` gives them, while the module's namespace is exactly what it
# was when they were found (checked on every call; any change and the real `dir()` answers).
# pytest then does for each remaining name what it always does, so what it registers and
# warns about is what a cold run's does.
_FIXTURE_SCANS = {}

# What pytest's fixture scan reads of an attribute's value: pytest 7's mark
# `_pytestfixturefunction`, 8.4+'s `_fixture_function_marker` and `_fixture_function`, the
# `__wrapped__` chain, a mock's `_mock_name`. A value that has none of them, and whose type
# runs no code when a name is missing, is skipped by the scan without anything happening.
_FIXTURE_LOOKS = ("_pytestfixturefunction", "_fixture_function_marker", "_fixture_function", "__wrapped__", "_mock_name")
_PLAIN_DATA = (int, float, complex, str, bytes, bool, type(None), frozenset, tuple, list, dict, set)
_ABSENT = object()


def _runs_code_on_a_miss(kind):
    """Whether looking up a missing name on an instance of `kind` can run code: some class
    of its own (for a class, its metaclass) hooks attribute access. typing's aliases and
    special forms do, only to answer from the alias's origin or to refuse: they are looked at
    through their origin instead."""
    import types

    for k in kind.__mro__:
        if k in (object, type, types.ModuleType, types.BuiltinFunctionType):
            continue
        if "__getattribute__" in k.__dict__:
            return True
        if "__getattr__" in k.__dict__ and k.__module__ != "typing":
            return True
    return False


def _inert(value, depth=0):
    """Whether pytest's fixture scan passes over `value` without running any code or
    finding anything."""
    import inspect
    import types

    kind = type(value)
    if kind in _PLAIN_DATA:
        return True
    if kind is types.ModuleType and "__getattr__" in value.__dict__:
        return False
    if depth > 4 or _runs_code_on_a_miss(kind):
        return False
    try:
        if any(inspect.getattr_static(value, name, _ABSENT) is not _ABSENT for name in _FIXTURE_LOOKS):
            return False
        if kind.__module__ == "typing":
            origin = inspect.getattr_static(value, "__origin__", None)
            return origin is None or _inert(origin, depth + 1)
    except Exception:
        return False
    return True


def _scan_plugin_modules(plugins):
    """Finds, for each plugin module not yet scanned (or changed since), the names of its
    attributes that pytest's fixture scan must see."""
    import types

    for module in plugins:
        if not isinstance(module, types.ModuleType):
            continue
        entry = _FIXTURE_SCANS.get(id(module))
        if entry is not None and _unchanged(module, entry):
            continue
        space = module.__dict__
        if "__dir__" in space or not all(isinstance(k, str) for k in space):
            continue
        keys, values = tuple(space), tuple(space.values())
        names = sorted(k for k, v in zip(keys, values) if not _inert(v))
        _FIXTURE_SCANS[id(module)] = (module, keys, values, names)


# The same for plugin objects (a session, a terminal reporter, a capture manager: made anew in
# every run, of classes the zygote holds): by class, the names of the class's and its bases'
# attributes that an instance's scan must see. Skipped are only a plain function or plain
# data found first along the MRO (getting it from an instance runs no code and gives nothing
# a fixture scan takes); the instance's own attributes are always seen. Any class along the
# MRO changed, and the real `dir()` answers.
_CLASS_SCANS = {}
# In a child: the classes of plugin objects it scanned that the zygote had not.
_NEW_HOLDER_CLASSES = []


def _scan_class(kind):
    import types

    mro = kind.__mro__
    if _runs_code_on_a_miss(kind) or any("__dir__" in k.__dict__ for k in mro if k is not object):
        return
    first = {}
    for k in mro:
        for name, value in k.__dict__.items():
            first.setdefault(name, value)
    if not all(type(n) is str for n in first):
        return
    names = frozenset(
        n
        for n, v in first.items()
        if not (type(v) in _PLAIN_DATA or (type(v) is types.FunctionType and _inert(v)))
    )
    spaces = tuple((tuple(k.__dict__), tuple(k.__dict__.values())) for k in mro)
    _CLASS_SCANS[id(kind)] = (kind, mro, spaces, names)


def _class_unchanged(kind, entry):
    return (
        entry[0] is kind
        and kind.__mro__ is entry[1]
        and all(_same_space(k.__dict__, keys, values) for k, (keys, values) in zip(entry[1], entry[2]))
    )


def _learn_holder_classes(items):
    """Scans the classes of plugin objects a child reported, found by module and qualified
    name among what the zygote holds (nothing is imported for them)."""
    for module_name, qualname in items[:64]:
        kind = sys.modules.get(module_name)
        for part in qualname.split("."):
            kind = getattr(kind, part, None)
        if isinstance(kind, type) and id(kind) not in _CLASS_SCANS:
            _scan_class(kind)


def _unchanged(module, entry):
    return entry[0] is module and _same_space(module.__dict__, entry[1], entry[2])


def _same_space(space, keys, values):
    """Whether a namespace holds exactly these keys and values, each the same object."""
    import operator

    return (
        len(space) == len(keys)
        and all(map(operator.is_, space, keys))
        and all(map(operator.is_, space.values(), values))
    )


def _fixture_dir(*args):
    """`dir()` as pytest's fixture module sees it: a scanned plugin module, unchanged, gives
    only the names that can matter to a fixture scan."""
    if len(args) == 1:
        holder = args[0]
        entry = _FIXTURE_SCANS.get(id(holder))
        if entry is not None and _unchanged(holder, entry):
            return list(entry[3])
        kind = type(holder)
        scan = _CLASS_SCANS.get(id(kind))
        if scan is not None and _class_unchanged(kind, scan):
            try:
                own = object.__getattribute__(holder, "__dict__")
            except AttributeError:
                own = {}
            if type(own) is dict and all(type(n) is str for n in own):
                return sorted(scan[3].union(own))
        elif scan is None and not isinstance(holder, (type, type(sys))) and "<" not in kind.__qualname__:
            _NEW_HOLDER_CLASSES.append((kind.__module__, kind.__qualname__))
    elif not args:
        # `dir()` names the caller's local names, not this function's.
        return sorted(sys._getframe(1).f_locals)
    return dir(*args)


def _shorten_fixture_scans():
    """Gives pytest's fixture module the `dir()` above, where it has one scan that uses it."""
    try:
        import _pytest.fixtures as fixtures
    except Exception:
        return
    if "dir" not in fixtures.__dict__:
        fixtures.dir = _fixture_dir


# importlib.metadata reads and parses every installed distribution's entry_points.txt twice a
# pytest run (pluggy's plugin loading, pytest's marking of plugins for assertion rewriting),
# whether the distribution has plugins or not: 1.5 ms a run with Debian's 36 distributions,
# 5.5 ms with 99. The zygote keeps each metadata file's text with the file's identity (device,
# inode, size, modification and change times), checked by one `stat` on every read, so a file
# that changed, appeared or went away is read again; and each text's entry points as (name,
# value, group), made into new EntryPoint objects on every call, as parsing makes them.
_METADATA_READS = {}
_ENTRY_POINT_TEXTS = {}


def _keep_metadata():
    """Puts the two caches above in front of importlib.metadata's file reads and entry-point
    parsing, where this Python's importlib.metadata has them, and fills them with what a run
    reads."""
    try:
        import importlib.metadata as md
        import pathlib
    except Exception:
        return
    dist_cls = md.PathDistribution
    read = dist_cls.__dict__.get("read_text")
    if read is None or getattr(read, "_evootter", False):
        return

    def read_text(self, filename):
        path = self.__dict__.get("_path")
        if type(path) is not pathlib.PosixPath or type(filename) is not str:
            return read(self, filename)
        full = os.path.join(path, filename)
        try:
            st = os.stat(full)
        except (FileNotFoundError, NotADirectoryError):
            sig = None
        except OSError:
            return read(self, filename)
        else:
            if not stat.S_ISREG(st.st_mode):
                return read(self, filename)
            sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        kept = _METADATA_READS.get(full)
        if kept is not None and kept[0] == sig:
            return kept[1]
        text = read(self, filename)
        _METADATA_READS[full] = (sig, text)
        return text

    read_text._evootter = True
    dist_cls.read_text = read_text
    parse = md.EntryPoints.__dict__.get("_from_text")
    if isinstance(parse, staticmethod):
        parse = parse.__func__
        make = md.EntryPoint

        def _from_text(text):
            items = _ENTRY_POINT_TEXTS.get(text)
            if items is None:
                eps = list(parse(text))
                _ENTRY_POINT_TEXTS[text] = [(ep.name, ep.value, ep.group) for ep in eps]
                return iter(eps)
            return (make(name=n, value=v, group=g) for n, v, g in items)

        md.EntryPoints._from_text = staticmethod(_from_text)
    try:
        for dist in md.distributions():
            if any(ep.group == "pytest11" for ep in dist.entry_points):
                dist.files
    except Exception:
        pass


# pytest rewrites the asserts of every test module (and conftest) it imports: parse, rewrite,
# compile, about 2 ms for a small test file; it would keep the result in `__pycache__`, which
# a run's `-B` turns off. One test file is run on c_old and on every mutant, so the zygote
# keeps what a child's pytest made of it: the code object, keyed by the file's path and the
# SHA-256 of its bytes, only where assertion-pass hooks are off (the only setting the rewrite
# reads) and only where making it warns of nothing (the rewriter's "assertion is always true"
# and the compiler's warnings must show in every run that compiles the file: the zygote
# rewrites the source once itself, every warning recorded, and keeps none that warned).
_REWRITES = {}
# In a child: (path, source, kind of the first result, code) of what its pytest rewrote that
# the zygote did not have.
_NEW_REWRITES = []


def _keep_rewrites():
    """Puts the cache above in front of pytest's `_rewrite_test`, where pytest has one that
    returns (the file's stat or source hash, code)."""
    try:
        import importlib.util

        from _pytest.assertion import rewrite
    except Exception:
        return
    original = getattr(rewrite, "_rewrite_test", None)
    if original is None or getattr(original, "_evootter", False):
        return

    def _rewrite_test(fn, config):
        try:
            hooked = config is not None and bool(config.getini("enable_assertion_pass_hook"))
            path = str(fn)
            source = fn.read_bytes()
            kept = None if hooked else _REWRITES.get((path, hashlib.sha256(source).digest()))
        except Exception:
            return original(fn, config)
        if kept is not None:
            kind, code = kept
            if kind == "stat":
                return os.stat(fn), code
            return importlib.util.source_hash(source), code
        result = original(fn, config)
        if not hooked and type(result) is tuple and len(result) == 2:
            kind = "stat" if isinstance(result[0], os.stat_result) else "hash" if isinstance(result[0], bytes) else None
            if kind is not None and isinstance(result[1], type(_keep_rewrites.__code__)):
                _NEW_REWRITES.append((path, source, kind, result[1]))
        return result

    _rewrite_test._evootter = True
    rewrite._rewrite_test = _rewrite_test


def _learn_kept(data):
    """Keeps, for the next executions, what a child reported it made that the zygote did not
    have: rewritten test modules, compiled modules, statement ranges, plugin objects' classes."""
    try:
        rewrites, compiles, ranges, holders = marshal.loads(data)
    except Exception:
        return
    _learn_holder_classes(holders)
    _learn_rewrites(rewrites)
    _learn_compiles(compiles)
    _learn_ranges(ranges)
    gc.freeze()


def _learn_rewrites(items):
    """The rewritten modules a child reported whose rewriting warns of nothing."""
    import ast

    try:
        from _pytest.assertion.rewrite import rewrite_asserts
    except Exception:
        return
    def rewrite(source, path):
        tree = ast.parse(source, filename=path)
        rewrite_asserts(tree, source, path, None)
        return compile(tree, path, "exec", dont_inherit=True)

    for path, source, kind, code in items[:64]:
        key = (path, hashlib.sha256(source).digest())
        if key not in _REWRITES and _quietly(rewrite, source, path) is not None:
            _REWRITES[key] = (kind, code)


def _quietly(make, *args, **kw):
    """What `make(*args, **kw)` returns when it neither raises nor warns (every warning recorded,
    none shown), else None: only such work may be kept for children, whose runs must show
    every warning a cold run shows."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            made = make(*args, **kw)
        except Exception:
            return None
    return None if caught else made


# Modules importlib compiled from source (the working copy's own, with -B no bytecode is ever
# kept for them), by (path, the source's SHA-256, optimization level): the code object is a
# pure function of those in one interpreter, and a child that finds it skips the compile. Only
# a compile that warns of nothing is kept, for a warning to show where a cold run shows it;
# one that fails is never kept, so its error is raised as a cold run raises it.
_COMPILED = {}
_COMPILED_BYTES = [0]
_COMPILED_MAX_BYTES = 32 << 20
# In a child: (path, source, optimization level) of what it compiled that was not kept.
_NEW_COMPILES = []

# Compiled under importlib's own file name, so that the frame it adds between importlib's
# frames is trimmed with them from an import error's traceback, as in a cold run.
_SOURCE_TO_CODE = """
def source_to_code(self, data, path, *, _optimize=-1):
    if type(data) is bytes and type(path) is str and _builtins.compile is _compile:
        key = (path, _sha256(data).digest(), _optimize)
        code = _kept.get(key)
        if code is not None:
            return code
        code = _original(self, data, path, _optimize=_optimize)
        _new.append(key[:1] + (data, _optimize))
        return code
    return _original(self, data, path, _optimize=_optimize)
"""


def _keep_compiled():
    """Puts the cache above in front of importlib's `SourceLoader.source_to_code`."""
    import builtins
    from importlib import _bootstrap_external as external

    original = external.SourceLoader.source_to_code
    if getattr(original, "_evootter", False):
        return
    space = {
        "_builtins": builtins,
        "_compile": builtins.compile,
        "_sha256": hashlib.sha256,
        "_kept": _COMPILED,
        "_new": _NEW_COMPILES,
        "_original": original,
    }
    exec(compile(_SOURCE_TO_CODE, original.__code__.co_filename, "exec"), space)
    wrapper = space["source_to_code"]
    wrapper.__doc__ = original.__doc__
    wrapper.__qualname__ = original.__qualname__
    wrapper.__module__ = original.__module__
    wrapper._evootter = True
    external.SourceLoader.source_to_code = wrapper


def _learn_compiles(items):
    """The compiled modules a child reported whose compiling warns of nothing."""
    for path, source, optimize in items[:64]:
        key = (path, hashlib.sha256(source).digest(), optimize)
        if key in _COMPILED or _COMPILED_BYTES[0] + len(source) > _COMPILED_MAX_BYTES:
            continue
        code = _quietly(compile, source, path, "exec", dont_inherit=True, optimize=optimize)
        if code is not None:
            _COMPILED[key] = code
            _COMPILED_BYTES[0] += len(source)


# pytest's statement range of a traceback line (`getstatementrange_ast`: the source parsed,
# every statement of it walked, the block tokenized) is a pure function of the source text,
# the parsed tree's text, the line and the `assertion` flag; pytest 7 walks the whole module
# again for every traceback entry it shows. Kept: each text's tree (`_TREES`, returned in place
# of a fresh parse of the same text) and each range.
_TREES = {}
_TREES_CHARS = [0]
# id of a tree -> (tree, its text): the kept trees and, in a child, the ones pytest parsed.
_TREE_TEXTS = {}
_RANGES = {}
_RANGES_MAX = 1 << 16
_TREES_MAX_CHARS = 16 << 20
# In a child: (tree's text, source text, line, assertion, start, end) it computed.
_NEW_RANGES = []


def _keep_statement_ranges():
    """Puts the memo above in front of pytest's `getstatementrange_ast`, where pytest has it
    with today's signature (its `code` module calls it by that name)."""
    try:
        import ast
        import inspect

        from _pytest._code import code, source
    except Exception:
        return
    original = getattr(source, "getstatementrange_ast", None)
    if original is None or getattr(original, "_evootter", False):
        return
    if getattr(code, "getstatementrange_ast", None) is not original:
        return
    if list(inspect.signature(original).parameters) != ["lineno", "source", "assertion", "astnode"]:
        return
    parse = ast.parse

    def getstatementrange_ast(lineno, source, assertion=False, astnode=None):
        try:
            text = str(source)
            if astnode is None:
                tree_text = text
            else:
                kept = _TREE_TEXTS.get(id(astnode))
                tree_text = kept[1] if kept is not None and kept[0] is astnode else None
            key = (tree_text, text, lineno, assertion)
            found = _RANGES.get(key) if tree_text is not None and ast.parse is parse else None
        except Exception:
            return original(lineno, source, assertion, astnode)
        if found is not None:
            return (_TREES[tree_text] if astnode is None else astnode,) + found
        if astnode is None and text in _TREES:
            # The kept tree is what a fresh parse of the text gives: later entries of the
            # same traceback then come with a tree of a known text.
            astnode = _TREES[text]
        result = original(lineno, source, assertion, astnode)
        if tree_text is not None:
            if astnode is None:
                _TREE_TEXTS[id(result[0])] = (result[0], text)
            _NEW_RANGES.append(key + result[1:])
        return result

    getstatementrange_ast._evootter = True
    getstatementrange_ast.__wrapped__ = original
    source.getstatementrange_ast = getstatementrange_ast
    code.getstatementrange_ast = getstatementrange_ast


def _learn_ranges(items):
    """The statement ranges a child reported, with a tree of each text they were computed
    on."""
    import ast
    import warnings

    for tree_text, text, lineno, assertion, start, end in items[:256]:
        if len(_RANGES) >= _RANGES_MAX:
            return
        for t in (tree_text, text):
            if t not in _TREES:
                if _TREES_CHARS[0] + len(t) > _TREES_MAX_CHARS:
                    return
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        tree = ast.parse(t, "source", "exec")
                    except Exception:
                        return
                _TREES[t] = tree
                _TREES_CHARS[0] += len(t)
                _TREE_TEXTS[id(tree)] = (tree, t)
        _RANGES[(tree_text, text, lineno, assertion)] = (start, end)


def _use_template(template):
    """In the child: pytest's next `get_config` call, if its arguments block the same
    plugins and name pytest the same, gets the prepared one with this run's arguments
    recorded in it."""
    if template is None or template[1] is None:
        return
    import pathlib

    import _pytest.config as pc

    (blocked, prog), config = template
    original = pc.get_config

    def get_config(args=None, plugins=None, **kw):
        pc.get_config = original
        if args is None or plugins or kw.get("prog") != prog or _blocked(args) != blocked:
            return original(args, plugins, **kw)
        config.invocation_params = pc.Config.InvocationParams(
            args=args, plugins=plugins, dir=pathlib.Path.cwd()
        )
        return config

    pc.get_config = get_config


def _exit_as_python_would(code):
    """The end of a child whose pytest raised SystemExit(code): what the interpreter's
    finalization does that anyone can see (non-daemon threads joined, atexit callbacks,
    buffered files flushed, the exit status), without tearing down every object, which in a
    forked child copies each page it inherited (a sixth of a run). A run that left an object
    whose class has a Python `__del__` gets the interpreter's full finalization instead."""
    import atexit
    import io
    import threading

    threading._shutdown()
    atexit._run_exitfuncs()
    live = gc.get_objects()
    if any(hasattr(getattr(type(o), "__del__", None), "__code__") for o in live):
        del live
        sys.exit(code)
    writers = (io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom)
    for o in live:
        if isinstance(o, writers):
            try:
                if not o.closed:
                    o.flush()
            except Exception:
                pass
    del live
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        try:
            print(code, file=sys.stderr)
        except Exception:
            pass
        status = 1
    for f in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            f.flush()
        except Exception:
            pass
    os._exit(status & 0xFF)


# The most a child reports (the zygote reads it as it comes, so it need not fit a pipe's
# buffer); a report that would be longer leaves out its rewritten modules, then patterns.
_REPORT_BYTES = 4 << 20


def _re_caches():
    """The re module's caches of compiled patterns (their names differ between versions)."""
    import re

    return [d for d in (getattr(re, "_cache", None), getattr(re, "_cache2", None)) if isinstance(d, dict)]


# The (pattern, flags) pairs the zygote has compiled or tried (a pattern that warns is tried
# once and left out): a child reports only others.
_KNOWN_PATTERNS = set()


def _cached_patterns():
    """The (pattern, flags) pairs the re caches hold."""
    return {
        (key[1], key[2])
        for cache in _re_caches()
        for key in list(cache)
        if len(key) == 3 and isinstance(key[2], int) and isinstance(key[1], (str, bytes))
    }


def _pattern_keys():
    """The patterns this child compiled that the zygote does not know, as JSON-able items."""
    out = []
    for p, flags in _cached_patterns() - _KNOWN_PATTERNS:
        if len(p) <= 2000:
            is_bytes = isinstance(p, bytes)
            out.append([p.decode("latin-1") if is_bytes else p, flags, is_bytes])
    return out


def _learn_patterns(payload):
    """Compiles, for the next executions, the regular expressions an execution compiled
    (pytest's own, the libraries'), so that re's cache already holds them: the cache only
    saves time. A pattern whose compiling warns is left out, for that warning to show where a
    cold run shows it."""
    import re
    import warnings

    try:
        items = json.loads(payload)
    except ValueError:
        return
    warned = []
    for p, flags, is_bytes in items[:512]:
        pattern = p.encode("latin-1") if is_bytes else p
        if (pattern, flags) in _KNOWN_PATTERNS:
            continue
        _KNOWN_PATTERNS.add((pattern, flags))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                re.compile(pattern, flags)
            except Exception:
                continue
        if caught:
            warned.append((type(pattern), pattern, flags))
    for key in warned:
        for cache in _re_caches():
            cache.pop(key, None)
    gc.freeze()


def _warm_inspect():
    """Fills inspect's map from files to modules for every module the zygote holds, which
    `inspect.getmodule` (pytest calls it for every traceback entry it shows) otherwise
    rebuilds in every child."""
    try:
        import inspect

        # A code object has no `__module__` to answer from: getmodule walks sys.modules.
        inspect.getmodule(_warm_inspect.__code__, "/nonexistent/evootter-warm-inspect.py")
    except Exception:
        pass


def _report_modules(mods_w):
    """In the child, as pytest ends: the modules it imported from the interpreter's library
    and site-packages, and the regular expressions it compiled, for the zygote to have ready
    next time."""
    try:
        names = []
        for name, mod in list(sys.modules.items()):
            if name in _ZYGOTE_MODULES or name.startswith("__"):
                continue
            f = getattr(mod, "__file__", None)
            if isinstance(f, str) and os.path.realpath(f).startswith(_ROOTS):
                names.append(name)
        report = "\n".join(sorted(names)).encode()[: _REPORT_BYTES // 4]
        new = _pattern_keys()
        patterns = json.dumps(new).encode() if new else b""
        if len(report) + 1 + len(patterns) > _REPORT_BYTES // 2:
            patterns = b""
        kept = b""
        holders = sorted(set(h for h in _NEW_HOLDER_CLASSES if type(h[0]) is str))
        for made in (
            (_NEW_REWRITES, _NEW_COMPILES, _NEW_RANGES, holders),
            ([], _NEW_COMPILES, _NEW_RANGES, holders),
            ([], [], _NEW_RANGES, holders),
            ([], [], [], holders),
        ):
            if any(made):
                kept = marshal.dumps(made)
                if len(report) + len(patterns) + 2 + len(kept) <= _REPORT_BYTES:
                    break
                kept = b""
        view = memoryview(report + b"\0" + patterns + b"\0" + kept)
        while view:
            view = view[os.write(mods_w, view):]
    except BaseException:
        pass
    finally:
        try:
            os.close(mods_w)
        except OSError:
            pass


_NETNS_PER_RUN = False
_START_ENV = {}


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
    if _WATCH.fd is not None:
        os.close(_WATCH.fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(log_w, 1)
    os.dup2(log_w, 2)
    os.close(log_w)
    env = _run_env(req)
    os.environ.clear()
    os.environ.update(env)
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None
    sys.argv = [""] + req["args"]


def main():
    if not hasattr(os, "pidfd_open"):
        sys.stderr.write(
            f"this interpreter ({sys.version.split()[0]}) has no os.pidfd_open: the warm "
            "executor needs Python 3.9 or newer on Linux 5.3 or newer\n"
        )
        sys.exit(3)
    copy = os.getcwd()
    clean = [d for d in os.environ.pop("EVOOTTER_ZYGOTE_CLEAN", "").split(":") if d]
    global _NETNS_PER_RUN
    _NETNS_PER_RUN = os.environ.pop("EVOOTTER_ZYGOTE_NETNS", "") == "1"
    pending = None
    pending_fd = os.environ.pop("EVOOTTER_ZYGOTE_PENDING", "")
    if pending_fd:
        with os.fdopen(int(pending_fd), "rb") as f:
            pending = f.read()
    _START_ENV.update(os.environ)
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    _preload()
    _shorten_fixture_scans()
    _keep_metadata()
    _keep_rewrites()
    _keep_compiled()
    _keep_statement_ranges()
    global _ROOTS
    _ROOTS = tuple(r for r in _outside_roots() if not r.startswith(copy.rstrip("/") + "/"))
    _warm_inspect()
    _KNOWN_PATTERNS.update(_cached_patterns())
    _WATCH.add_modules()
    # What exists now is never garbage: the children's collections skip it.
    gc.freeze()
    if pending is None:
        _frame(
            b"R",
            json.dumps(
                {"python": sys.version.split()[0], "from_copy": _from_copy(copy)}
            ).encode(),
        )
        return _serve(copy, clean, b"")
    if _from_copy(copy):
        # Started over, now importing the copy's modules: ended, so that evootter starts
        # it afresh and its ready frame says which.
        os._exit(3)
    return _serve(copy, clean, pending)


_req, _log_w, _mods_w, _template = main()
_become_run(_req, _log_w)
_use_template(_template)
del _req, _log_w, _template
try:
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    _code = 0
except SystemExit as _e:
    _code = _e.code
    del _e
finally:
    _report_modules(_mods_w)
_exit_as_python_would(_code)
