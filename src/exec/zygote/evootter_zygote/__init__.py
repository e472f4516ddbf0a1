# evootter's warm executor: one long-lived interpreter per worker (the zygote) that has
# imported pytest and its plugins, and forks once per execution. The child runs pytest
# in-process with the arguments and environment a cold `python -B -m pytest` gets, so its log,
# junit report and exit status are the same; only the interpreter's start-up is saved.
#
# Started by evootter in the worker's copy, inside the same sandbox a cold run gets, with the
# run's environment, as `python -B evootter_zygote_main.py` (the launcher beside this
# package). The zygote never imports the repository's own modules, never writes to its own
# stdout otherwise than in frames, and is a child subreaper: whatever an execution leaves
# behind is killed before the end frame is sent.
#
# The modules: `protocol` (frames out, requests in), `main` (starting, serving, becoming a
# run), `supervise` (a running child, its log, what it leaves), `watch` (starting over when
# a module's file changes), `stage` (a container's copy staged, collected, listed, put back),
# `preload` (what is imported before any run), `report` (what a child tells the zygote it
# learned), `shortcuts/` (the speed-ups whose results must equal a cold run's, one each).
#
# This file imports nothing: the launcher imports it while its own directory is still first
# on sys.path, and every module the package imports must come from where a cold run's would.
