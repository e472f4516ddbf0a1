# Shortcut: the modules runs imported from outside the copy (the libraries the tests use)
# imported in the zygote for the next runs, and watched for changes.
# Checked against cold runs by tests/warm.rs:
# a_library_edited_while_the_interpreter_lives_is_seen_as_a_cold_run_sees_it (a library the
# zygote holds edited, then removed) and warm_and_cold_runs_log_the_same_on_<example>.
import gc
import os
import sys

from evootter_zygote import watch
from evootter_zygote.shortcuts import fixture_scan, inspect_warmup


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


def learn(names, copy):
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
    inspect_warmup.warm()
    fixture_scan.scan_plugin_modules([e[0] for e in list(fixture_scan.FIXTURE_SCANS.values())])
    watch.WATCH.add_modules()
    gc.freeze()
