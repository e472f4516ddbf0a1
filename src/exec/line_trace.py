"""evootter's line tracer, a pytest plugin staged into one run's working copy only.

Records which lines of the target files (EVOOTTER_TRACE_TARGET, absolute paths, one a line)
run during the test session and writes them to EVOOTTER_TRACE_OUT as a JSON list holding one
sorted list of line numbers per target, in the targets' order. It prints nothing: the run's
log is the same as without it. Only frames of the target files are traced line by line.

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

_TOOL = "lines"
_TARGETS = [t for t in os.environ.get("EVOOTTER_TRACE_TARGET", "").split("\n") if t]
_OUT = os.environ.get("EVOOTTER_TRACE_OUT", "")
_LINES = {t: set() for t in _TARGETS}
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


def _global(frame, event, arg):
    lines = _LINES.get(frame.f_code.co_filename)
    if lines is None:
        return None
    if frame.f_lineno:
        lines.add(frame.f_lineno)

    def _local(frame, event, arg):
        if event == "line" and frame.f_lineno:
            lines.add(frame.f_lineno)
        return _local

    return _local


def pytest_configure(config):
    if _TARGETS and _COV is None:
        threading.settrace(_global)
        sys.settrace(_global)


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
        sys.settrace(None)
        threading.settrace(None)
        out = [sorted(_LINES[t]) for t in _TARGETS]
        if _TOOL == "coverage":
            out = {
                "tool": "evootter line tracer",
                "why": f"coverage.py is not importable here ({_COV_ERROR})",
                "files": out,
            }
    if _OUT:
        with open(_OUT, "w") as f:
            json.dump(out, f)
