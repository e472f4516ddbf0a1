# Shortcut: inspect's map from files to modules filled in the zygote.
# Checked against cold runs by tests/warm.rs:
# warm_and_cold_runs_log_the_same_on_<example> (every traceback pytest shows looks its
# entries' modules up in it).


def warm():
    """Fills inspect's map from files to modules for every module the zygote holds, which
    `inspect.getmodule` (pytest calls it for every traceback entry it shows) otherwise
    rebuilds in every child."""
    try:
        import inspect

        # A code object has no `__module__` to answer from: getmodule walks sys.modules.
        inspect.getmodule(warm.__code__, "/nonexistent/evootter-warm-inspect.py")
    except Exception:
        pass
