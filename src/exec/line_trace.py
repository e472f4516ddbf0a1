"""evootter's line tracer, a pytest plugin staged into one run's working copy only.

Records which lines of the target files (EVOOTTER_TRACE_TARGET, absolute paths, one a line)
run during the test session and writes them to EVOOTTER_TRACE_OUT as a JSON list holding one
sorted list of line numbers per target, in the targets' order. It prints nothing: the run's
log is the same as without it. Only frames of the target files are traced line by line.
"""
import json
import os
import sys
import threading

_TARGETS = [t for t in os.environ.get("EVOOTTER_TRACE_TARGET", "").split("\n") if t]
_OUT = os.environ.get("EVOOTTER_TRACE_OUT", "")
_LINES = {t: set() for t in _TARGETS}


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
    if _TARGETS:
        threading.settrace(_global)
        sys.settrace(_global)


def pytest_unconfigure(config):
    sys.settrace(None)
    threading.settrace(None)
    if _OUT:
        with open(_OUT, "w") as f:
            json.dump([sorted(_LINES[t]) for t in _TARGETS], f)
