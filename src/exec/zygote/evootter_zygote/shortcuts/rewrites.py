# Shortcut: pytest's rewrite of a test module's asserts kept by the module's bytes.
# Checked against cold runs by tests/warm.rs:
# a_rewritten_test_module_is_reused_only_for_the_same_bytes_and_never_hides_a_warning (one
# path with other bytes, and a module whose rewriting and compiling warn).
import hashlib
import os

from evootter_zygote.shortcuts import quietly

# pytest rewrites the asserts of every test module (and conftest) it imports: parse, rewrite,
# compile, about 2 ms for a small test file; it would keep the result in `__pycache__`, which
# a run's `-B` turns off. One test file is run on c_old and on every mutant, so the zygote
# keeps what a child's pytest made of it: the code object, keyed by the file's path and the
# SHA-256 of its bytes, only where assertion-pass hooks are off (the only setting the rewrite
# reads) and only where making it warns of nothing (the rewriter's "assertion is always true"
# and the compiler's warnings must show in every run that compiles the file: the zygote
# rewrites the source once itself, every warning recorded, and keeps none that warned).
REWRITES = {}
# In a child: (path, source, kind of the first result, code) of what its pytest rewrote that
# the zygote did not have.
NEW_REWRITES = []


def keep():
    """Puts the cache above in front of pytest's `_rewrite_test`, where pytest has one that
    returns (the file's stat or source hash, code)."""
    try:
        import importlib.util

        from _pytest.assertion import rewrite
    except Exception:
        return
    original = getattr(rewrite, "_rewrite_test", None)
    if original is None or getattr(original, "_evootter", False):
        return

    def _rewrite_test(fn, config):
        try:
            hooked = config is not None and bool(config.getini("enable_assertion_pass_hook"))
            path = str(fn)
            source = fn.read_bytes()
            kept = None if hooked else REWRITES.get((path, hashlib.sha256(source).digest()))
        except Exception:
            return original(fn, config)
        if kept is not None:
            kind, code = kept
            if kind == "stat":
                return os.stat(fn), code
            return importlib.util.source_hash(source), code
        result = original(fn, config)
        if not hooked and type(result) is tuple and len(result) == 2:
            kind = "stat" if isinstance(result[0], os.stat_result) else "hash" if isinstance(result[0], bytes) else None
            if kind is not None and isinstance(result[1], type(keep.__code__)):
                NEW_REWRITES.append((path, source, kind, result[1]))
        return result

    _rewrite_test._evootter = True
    rewrite._rewrite_test = _rewrite_test


def learn(items):
    """The rewritten modules a child reported whose rewriting warns of nothing."""
    import ast

    try:
        from _pytest.assertion.rewrite import rewrite_asserts
    except Exception:
        return
    def rewrite(source, path):
        tree = ast.parse(source, filename=path)
        rewrite_asserts(tree, source, path, None)
        return compile(tree, path, "exec", dont_inherit=True)

    for path, source, kind, code in items[:64]:
        key = (path, hashlib.sha256(source).digest())
        if key not in REWRITES and quietly(rewrite, source, path) is not None:
            REWRITES[key] = (kind, code)
