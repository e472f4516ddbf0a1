# The program evootter starts for the warm executor (`python -B evootter_zygote_main.py`, in
# the worker's copy): it imports the zygote (the package `evootter_zygote` beside it), lets
# it serve, and in each forked child becomes the `python -B -m pytest` run.
#
# This file and the package are alone in their directory, which Python put first on
# sys.path. Only the package itself is found there: then sys.path[0] is the working
# directory, and the package's modules come from the package's own directory, so nothing of
# the zygote's is importable by a test under a generic name, and every standard module the
# zygote imports is found where a cold run would find it.
import os
import sys

import evootter_zygote  # noqa: F401  (it imports nothing)

# `python -m pytest` puts the working directory first on sys.path; a script would put its
# own directory there instead.
sys.path[0] = os.getcwd()

from evootter_zygote import main, report  # noqa: E402
from evootter_zygote.shortcuts import quick_exit  # noqa: E402
import runpy  # noqa: E402

# The run's code is here, at the top of the script, so that a test's stack holds the frames
# it held when the zygote was one script (what a warning's location or a stack's depth shows).
_req, _log_w, _mods_w, _template = main.main()
main.become_run(_req, _log_w, _template)
del _req, _log_w, _template
try:
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    _code = 0
except SystemExit as _e:
    _code = _e.code
    del _e
finally:
    report.send(_mods_w)
quick_exit.exit_as_python_would(_code)
