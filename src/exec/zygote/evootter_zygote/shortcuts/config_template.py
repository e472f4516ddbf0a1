# Shortcut: pytest's `get_config` prepared in the zygote, one for each set of blocked plugins.
# Checked against cold runs by tests/warm.rs:
# warm_and_cold_runs_log_the_same_on_<example> (every bundled example's runs, under
# pytest 9 and Debian's pytest 7).
import gc
import os

from evootter_zygote import preload, protocol
from evootter_zygote.shortcuts import fixture_scan, parsers

# pytest's first step, `get_config` (a plugin manager with every built-in plugin registered,
# less those `-p no:NAME` blocks), depends on nothing but those arguments and PYTEST_DEBUG,
# and takes about a sixth of an in-process run. It is built here once per set of blocked
# plugins and never used by the zygote itself: every child starts from its own untouched
# copy, as if it had built it.
TEMPLATES = {}


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


def prepare(req):
    """The prepared `get_config` result for this run's arguments, or None (pytest's own
    runs then, as without a template)."""
    args = list(req["args"])
    if protocol.run_env(req).get("PYTEST_DEBUG") or os.environ.get("PYTEST_DEBUG"):
        return None
    try:
        import _pytest.config as pc

        prog = _pytest_prog(args)
    except Exception:
        return None
    key = (_blocked(args), prog)
    if key not in TEMPLATES:
        try:
            kw = {} if prog is None else {"prog": prog}
            config = pc.get_config(list(args), **kw)
            if parsers.reuse():
                # Built now, for the options the template has: a child whose plugins add
                # none starts with it.
                config._parser._getparser()
            TEMPLATES[key] = config
        except Exception:
            TEMPLATES[key] = None
        if TEMPLATES[key] is not None:
            fixture_scan.scan_plugin_modules(list(TEMPLATES[key].pluginmanager.get_plugins()) + preload.ENTRY_PLUGINS)
        gc.freeze()
    return key, TEMPLATES[key]


def use(template):
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
