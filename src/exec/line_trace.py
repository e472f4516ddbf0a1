"""evootter's line tracer, a pytest plugin staged into one run's working copy only.

Records which lines of the target files (EVOOTTER_TRACE_TARGET, absolute paths, one a line)
run while the tests are collected and run (see `_WINDOWS`) and writes them to
EVOOTTER_TRACE_OUT as a JSON list holding one sorted list of line numbers per target, in the
targets' order. It prints nothing: the run's log is the same as without it. Only code of the
target files is traced line by line: `sys.monitoring` on Python 3.12 and later,
`sys.settrace` before.

With EVOOTTER_TRACE_PER_TEST=1 it also keeps, per test (node id), the lines its setup, call
and teardown ran, and writes an object: `{"lines": [...], "tests": {NODEID: [...]}}`, each
value a list per target as above. This is how a mutant's judges are chosen: only the tests
that run its lines can tell it from c_old.

With `_TOOL = "coverage"` (set where the plugin is staged, for scoring) coverage.py measures
instead, as the public harnesses measure: started when pytest loads this plugin (before any
conftest or test module is imported, as under `coverage run`), with branch coverage, and the
output is an object: the tool, and per target its statements, the lines that ran and
coverage's "Missing" column. Where coverage.py cannot be imported the line tracer runs and the
object says why.
"""
import json
import os
import sys
import threading
import warnings

import pytest

_TOOL = "lines"
_TARGETS = [t for t in os.environ.get("EVOOTTER_TRACE_TARGET", "").split("\n") if t]
_OUT = os.environ.get("EVOOTTER_TRACE_OUT", "")
_LINES = {t: set() for t in _TARGETS}
_PER_TEST = os.environ.get("EVOOTTER_TRACE_PER_TEST") == "1"
# Per test, its lines per target; `_CURRENT` is the running test's, None between tests.
_BY_TEST = {}
_CURRENT = None
_COV = None
_COV_ERROR = None
_COV_VERSION = None

if _TARGETS and _TOOL == "coverage":
    try:
        import coverage

        _COV_VERSION = coverage.__version__

        # No data file (nothing is written into the copy) and no configuration file: the
        # repository's own [coverage] settings (plugins, source, omit) must not decide what
        # is measured.
        _COV = coverage.Coverage(
            data_file=None, include=_TARGETS, branch=True, config_file=False
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _COV.start()
    except Exception as e:  # noqa: BLE001 - any failure falls back to the line tracer
        _COV = None
        _COV_ERROR = f"{type(e).__name__}: {e}"


# What is traced: the windows in which a test's own code and the code it reaches run, that is
# collecting (test modules and conftests imported, and what they import) and each test's
# setup, call, teardown and report making (an exception's `__str__` runs there), each
# entered through a hook wrapper. pytest's own work around them (configuring, the session's
# start, every report logged to the terminal and the junit file, the summary) runs with no
# tracer: under `sys.settrace` each of its Python calls costs a call of `_global`, and on
# Python 3.12+ `sys.settrace` itself is slow (60 ms a run on 3.12.1, README).
_WINDOWS = (
    "pytest_make_collect_report",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
)


def _global(frame, event, arg):
    lines = _LINES.get(frame.f_code.co_filename)
    if lines is None:
        return None
    mine = _CURRENT[frame.f_code.co_filename] if _CURRENT is not None else None
    if frame.f_lineno:
        lines.add(frame.f_lineno)
        if mine is not None:
            mine.add(frame.f_lineno)

    def _local(frame, event, arg):
        if event == "line" and frame.f_lineno:
            lines.add(frame.f_lineno)
            if mine is not None:
                mine.add(frame.f_lineno)
        return _local

    return _local


class _SetTrace:
    """Python 3.11 and older: `sys.settrace`, for this thread and threads started in a
    window. A trace function the test (or a tool such as coverage.py) installed is never
    replaced or removed: its run must go as an untraced one would, even if this one then
    sees less."""

    def on(self):
        if sys.gettrace() is None:
            sys.settrace(_global)
            threading.settrace(_global)

    def off(self):
        if sys.gettrace() is _global:
            sys.settrace(None)
        threading.settrace(None)

    close = off

    def new_test(self):
        pass


class _Monitoring:
    """Python 3.12 and later: `sys.monitoring`, under a tool id of its own, so it runs beside
    any tracer or profiler the test uses. The events stay on from start to end, since turning
    them on or off makes the interpreter instrument every code object again; outside a window
    the callbacks record nothing. Code of other files is seen once, at its first start, then
    disabled for good; a traced file's code gets line events, each line seen once in a window."""

    def __init__(self, mon, tool):
        self.mon, self.tool, self.codes, self.active = mon, tool, set(), False
        mon.register_callback(tool, mon.events.PY_START, self._start)
        mon.register_callback(tool, mon.events.LINE, self._line)
        mon.set_events(tool, mon.events.PY_START)

    def _start(self, code, offset):
        lines = _LINES.get(code.co_filename)
        if lines is None:
            return self.mon.DISABLE
        if code not in self.codes:
            self.codes.add(code)
            self.mon.set_local_events(self.tool, code, self.mon.events.LINE)
        if not self.active:
            return None
        lines.add(code.co_firstlineno)
        if _CURRENT is not None:
            _CURRENT[code.co_filename].add(code.co_firstlineno)
        return self.mon.DISABLE

    def _line(self, code, line):
        if not self.active:
            return None
        _LINES[code.co_filename].add(line)
        if _CURRENT is not None:
            _CURRENT[code.co_filename].add(line)
        return self.mon.DISABLE

    def new_test(self):
        # Each line is seen once (DISABLE); a new test must see its lines again.
        self.mon.restart_events()

    def on(self):
        self.active = True

    def off(self):
        self.active = False

    def close(self):
        self.mon.set_events(self.tool, 0)
        for code in self.codes:
            self.mon.set_local_events(self.tool, code, 0)
        self.mon.register_callback(self.tool, self.mon.events.PY_START, None)
        self.mon.register_callback(self.tool, self.mon.events.LINE, None)
        self.mon.free_tool_id(self.tool)


def _tracer():
    mon = getattr(sys, "monitoring", None)
    if mon is not None:
        # Ids 0, 1, 2 and 5 are the debugger's, coverage's, the profiler's and the
        # optimizer's by convention; take one nobody uses.
        for tool in (4, 3, 0, 1, 2, 5):
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "evootter line tracer")
                return _Monitoring(mon, tool)
    return _SetTrace()


_TRACER = None
# Windows nest (pytest 8 collects a directory's modules inside the directory's collect
# report): only the outermost one turns the tracer off.
_DEPTH = 0


def _window():
    @pytest.hookimpl(hookwrapper=True)
    def hook():
        global _DEPTH
        if _TRACER is None:
            yield
            return
        _DEPTH += 1
        if _DEPTH == 1:
            _TRACER.on()
        try:
            yield
        finally:
            _DEPTH -= 1
            if _DEPTH == 0:
                _TRACER.off()

    return hook


for _name in _WINDOWS:
    globals()[_name] = _window()


if _PER_TEST:

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(item, nextitem):
        """Lines run from here to the test's end are the test's own as well."""
        global _CURRENT
        if _TRACER is not None:
            _CURRENT = _BY_TEST.setdefault(item.nodeid, {t: set() for t in _TARGETS})
            _TRACER.new_test()
        try:
            yield
        finally:
            _CURRENT = None


def pytest_configure(config):
    global _TRACER
    if _TARGETS and _COV is None:
        _TRACER = _tracer()


def _measured(cov, target):
    """coverage.py's statements, executed lines and Missing column (with partial branches,
    as `coverage report -m` prints it) for one file."""
    _, statements, _, missing, formatted = cov.analysis2(target)
    try:
        formatted = cov._analyze(target).missing_formatted(branches=True)
    except Exception:  # noqa: BLE001 - an older coverage: lines only
        pass
    ran = sorted(set(statements) - set(missing))
    return {"statements": sorted(statements), "executed": ran, "missing": formatted}


def pytest_unconfigure(config):
    if _COV is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _COV.stop()
            files = []
            for t in _TARGETS:
                try:
                    files.append(_measured(_COV, t))
                except Exception:  # noqa: BLE001 - a file that does not exist or parse
                    files.append(None)
        out = {"tool": f"coverage {_COV_VERSION}", "files": files}
    else:
        if _TRACER is not None:
            _TRACER.close()
        out = [sorted(_LINES[t]) for t in _TARGETS]
        if _PER_TEST:
            out = {
                "lines": out,
                "tests": {n: [sorted(by[t]) for t in _TARGETS] for n, by in _BY_TEST.items()},
            }
        elif _TOOL == "coverage":
            out = {
                "tool": "evootter line tracer",
                "why": f"coverage.py is not importable here ({_COV_ERROR})",
                "files": out,
            }
    if _OUT:
        with open(_OUT, "w") as f:
            json.dump(out, f)
