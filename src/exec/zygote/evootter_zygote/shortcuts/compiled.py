# Shortcut: the code importlib compiles from a module's source kept by the source's bytes.
# Checked against cold runs by tests/warm.rs:
# a_compiled_module_and_a_traceback_s_statements_are_reused_only_for_the_same_text (one path
# with other bytes, a module whose compiling warns, one that fails to compile, and no frame
# of the zygote's in a syntax error's report).
import hashlib

from evootter_zygote.shortcuts import quietly

# Modules importlib compiled from source (the working copy's own, with -B no bytecode is ever
# kept for them), by (path, the source's SHA-256, optimization level): the code object is a
# pure function of those in one interpreter, and a child that finds it skips the compile. Only
# a compile that warns of nothing is kept, for a warning to show where a cold run shows it;
# one that fails is never kept, so its error is raised as a cold run raises it.
COMPILED = {}
COMPILED_BYTES = [0]
COMPILED_MAX_BYTES = 32 << 20
# In a child: (path, source, optimization level) of what it compiled that was not kept.
NEW_COMPILES = []

# Compiled under importlib's own file name, so that the frame it adds between importlib's
# frames is trimmed with them from an import error's traceback, as in a cold run.
_SOURCE_TO_CODE = """
def source_to_code(self, data, path, *, _optimize=-1):
    if type(data) is bytes and type(path) is str and _builtins.compile is _compile:
        key = (path, _sha256(data).digest(), _optimize)
        code = _kept.get(key)
        if code is not None:
            return code
        code = _original(self, data, path, _optimize=_optimize)
        _new.append(key[:1] + (data, _optimize))
        return code
    return _original(self, data, path, _optimize=_optimize)
"""


def keep():
    """Puts the cache above in front of importlib's `SourceLoader.source_to_code`."""
    import builtins
    from importlib import _bootstrap_external as external

    original = external.SourceLoader.source_to_code
    if getattr(original, "_evootter", False):
        return
    space = {
        "_builtins": builtins,
        "_compile": builtins.compile,
        "_sha256": hashlib.sha256,
        "_kept": COMPILED,
        "_new": NEW_COMPILES,
        "_original": original,
    }
    exec(compile(_SOURCE_TO_CODE, original.__code__.co_filename, "exec"), space)
    wrapper = space["source_to_code"]
    wrapper.__doc__ = original.__doc__
    wrapper.__qualname__ = original.__qualname__
    wrapper.__module__ = original.__module__
    wrapper._evootter = True
    external.SourceLoader.source_to_code = wrapper


def learn(items):
    """The compiled modules a child reported whose compiling warns of nothing."""
    for path, source, optimize in items[:64]:
        key = (path, hashlib.sha256(source).digest(), optimize)
        if key in COMPILED or COMPILED_BYTES[0] + len(source) > COMPILED_MAX_BYTES:
            continue
        code = quietly(compile, source, path, "exec", dont_inherit=True, optimize=optimize)
        if code is not None:
            COMPILED[key] = code
            COMPILED_BYTES[0] += len(source)
