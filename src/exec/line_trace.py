"""evootter's line tracer, a pytest plugin staged into one run's working copy only.

Records which lines of one file (EVOOTTER_TRACE_TARGET, an absolute path) run during the test
session and writes them as a JSON list to EVOOTTER_TRACE_OUT. It prints nothing: the run's log
is the same as without it. Only frames of the target file are traced line by line.
"""
import json
import os
import sys
import threading

_TARGET = os.environ.get("EVOOTTER_TRACE_TARGET", "")
_OUT = os.environ.get("EVOOTTER_TRACE_OUT", "")
_LINES = set()


def _local(frame, event, arg):
    if event == "line" and frame.f_lineno:
        _LINES.add(frame.f_lineno)
    return _local


def _global(frame, event, arg):
    if frame.f_code.co_filename == _TARGET:
        if frame.f_lineno:
            _LINES.add(frame.f_lineno)
        return _local
    return None


def pytest_configure(config):
    if _TARGET:
        threading.settrace(_global)
        sys.settrace(_global)


def pytest_unconfigure(config):
    sys.settrace(None)
    threading.settrace(None)
    if _OUT:
        with open(_OUT, "w") as f:
            json.dump(sorted(_LINES), f)
