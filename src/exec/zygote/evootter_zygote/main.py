# The zygote's life: it starts (pytest and its plugins imported, the shortcuts put in place,
# the ready frame sent), serves one request after another, and forks a child for every run;
# `main` returns only in that child, which then becomes the process a cold run's interpreter
# would be (`become_run`) before the launcher runs pytest in it.
import gc
import json
import os
import signal
import struct
import sys

from evootter_zygote import preload, protocol, report, stage, state, supervise, watch
from evootter_zygote.linux import (
    CLONE_NEWNET,
    IFF_UP,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_PDEATHSIG,
    SIOCGIFFLAGS,
    SIOCSIFFLAGS,
    libc,
)
from evootter_zygote.shortcuts import (
    compiled,
    config_template,
    fixture_scan,
    inspect_warmup,
    metadata,
    patterns,
    rewrites,
    statement_ranges,
)


def _serve(copy, clean, buf):
    while True:
        state.ZYGOTE_MODULES.clear()
        state.ZYGOTE_MODULES.update(sys.modules)
        req, blob, buf = protocol.read_request(buf)
        changed = watch.WATCH.changed()
        if changed is not None:
            sys.stderr.write(f"evootter zygote: {changed} changed; starting over\n")
            sys.stderr.flush()
            watch.start_over(clean, json.dumps(req).encode() + b"\n" + blob + buf)
        op = req.get("op", "run")
        if op != "run":
            try:
                protocol.frame(b"C", stage.list_copy(copy, req.get("list")) if op == "list" else stage.restore(copy, req, blob))
                protocol.frame(b"E", b'{"ok": true}')
            except Exception as e:
                protocol.frame(b"E", json.dumps({"error": f"{type(e).__name__}: {e}"}).encode())
            continue
        if "stage" in req:
            stage.stage(copy, req["stage"], blob)
        template = config_template.prepare(req)
        log_r, log_w = os.pipe()
        mods_r, mods_w = os.pipe()
        # What the zygote compiled itself (learning, a template) is not a child's to report.
        del compiled.NEW_COMPILES[:]
        pid = os.fork()
        if pid == 0:
            os.close(log_r)
            os.close(mods_r)
            return req, log_w, mods_w, template
        os.close(log_w)
        os.close(mods_w)
        ending, learned = supervise.supervise(pid, log_r, mods_r, float(req["timeout"]), clean)
        if "collect" in req:
            protocol.frame(b"C", stage.collect(copy, req["collect"]))
        protocol.frame(b"E", json.dumps(ending).encode())
        report.learn(learned, copy)


def _fresh_network():
    """A network namespace of the run's own with its loopback up, as a cold run gets: what
    one run leaves in the network (a port in TIME_WAIT) cannot reach the next. Where the
    zygote may not make one (no privilege), runs share the worker's."""
    if libc.unshare(CLONE_NEWNET) != 0:
        return
    import fcntl
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14s", b"lo", 0, bytes(14))
        flags = struct.unpack("16sH", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req)[:18])[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, bytes(14)))


def _forget_the_zygote():
    """A cold run holds nothing of the zygote's: its modules leave sys.modules (the child
    goes on running their code through the references it holds) and the import system's
    finders for its directories go, so that a test importing one of its names finds the
    repository's own, or nothing, as a cold run would."""
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in [n for n in sys.modules if n == "evootter_zygote" or n.startswith("evootter_zygote.")]:
        del sys.modules[name]
    for path in [p for p in sys.path_importer_cache if isinstance(p, str)]:
        if path == home or path.startswith(home + "/"):
            del sys.path_importer_cache[path]


def become_run(req, log_w, template):
    """In the child: the process a cold run's interpreter would be."""
    os.setpgid(0, 0)
    if state.NETNS_PER_RUN:
        _fresh_network()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        os._exit(1)
    os.close(protocol.CTRL_IN)
    os.close(protocol.CTRL_OUT)
    if watch.WATCH.fd is not None:
        os.close(watch.WATCH.fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(log_w, 1)
    os.dup2(log_w, 2)
    os.close(log_w)
    env = protocol.run_env(req)
    os.environ.clear()
    os.environ.update(env)
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None
    sys.argv = [""] + req["args"]
    _forget_the_zygote()
    config_template.use(template)


def main():
    """Starts the zygote and serves; returns in a forked child only: its request, the write
    ends of its log and report pipes, and the prepared configuration for it."""
    if not hasattr(os, "pidfd_open"):
        sys.stderr.write(
            f"this interpreter ({sys.version.split()[0]}) has no os.pidfd_open: the warm "
            "executor needs Python 3.9 or newer on Linux 5.3 or newer\n"
        )
        sys.exit(3)
    copy = os.getcwd()
    clean = [d for d in os.environ.pop("EVOOTTER_ZYGOTE_CLEAN", "").split(":") if d]
    state.NETNS_PER_RUN = os.environ.pop("EVOOTTER_ZYGOTE_NETNS", "") == "1"
    pending = None
    pending_fd = os.environ.pop("EVOOTTER_ZYGOTE_PENDING", "")
    if pending_fd:
        with os.fdopen(int(pending_fd), "rb") as f:
            pending = f.read()
    state.START_ENV.update(os.environ)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    preload.preload()
    fixture_scan.shorten()
    metadata.keep()
    rewrites.keep()
    compiled.keep()
    statement_ranges.keep()
    state.ROOTS = tuple(r for r in preload.outside_roots() if not r.startswith(copy.rstrip("/") + "/"))
    inspect_warmup.warm()
    patterns.KNOWN_PATTERNS.update(patterns.cached())
    watch.WATCH.add_modules()
    # What exists now is never garbage: the children's collections skip it.
    gc.freeze()
    if pending is None:
        protocol.frame(
            b"R",
            json.dumps(
                {"python": sys.version.split()[0], "from_copy": preload.from_copy(copy)}
            ).encode(),
        )
        return _serve(copy, clean, b"")
    if preload.from_copy(copy):
        # Started over, now importing the copy's modules: ended, so that evootter starts
        # it afresh and its ready frame says which.
        os._exit(3)
    return _serve(copy, clean, pending)
