# Shortcut: a child ends as the interpreter's finalization would end it, without tearing
# down every object it inherited.
# Checked against cold runs by tests/warm.rs: the_end_of_a_run_is_the_same_warm_and_cold (an
# atexit callback, a thread still running, a file never closed, an object whose `__del__`
# prints).
import gc
import os
import sys


def exit_as_python_would(code):
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
