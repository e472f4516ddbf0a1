# Shortcut: re's cache of compiled patterns filled in the zygote with what children compiled.
# Checked against cold runs by tests/warm.rs:
# warm_and_cold_runs_log_the_same_on_<example> (the patterns of pytest, its plugins and
# the examples' libraries, learned from earlier runs; a pattern that warns is never kept).
import gc
import json


def _re_caches():
    """The re module's caches of compiled patterns (their names differ between versions)."""
    import re

    return [d for d in (getattr(re, "_cache", None), getattr(re, "_cache2", None)) if isinstance(d, dict)]


# The (pattern, flags) pairs the zygote has compiled or tried (a pattern that warns is tried
# once and left out): a child reports only others.
KNOWN_PATTERNS = set()


def cached():
    """The (pattern, flags) pairs the re caches hold."""
    return {
        (key[1], key[2])
        for cache in _re_caches()
        for key in list(cache)
        if len(key) == 3 and isinstance(key[2], int) and isinstance(key[1], (str, bytes))
    }


def new_keys():
    """The patterns this child compiled that the zygote does not know, as JSON-able items."""
    out = []
    for p, flags in cached() - KNOWN_PATTERNS:
        if len(p) <= 2000:
            is_bytes = isinstance(p, bytes)
            out.append([p.decode("latin-1") if is_bytes else p, flags, is_bytes])
    return out


def learn(payload):
    """Compiles, for the next executions, the regular expressions an execution compiled
    (pytest's own, the libraries'), so that re's cache already holds them: the cache only
    saves time. A pattern whose compiling warns is left out, for that warning to show where a
    cold run shows it."""
    import re
    import warnings

    try:
        items = json.loads(payload)
    except ValueError:
        return
    warned = []
    for p, flags, is_bytes in items[:512]:
        pattern = p.encode("latin-1") if is_bytes else p
        if (pattern, flags) in KNOWN_PATTERNS:
            continue
        KNOWN_PATTERNS.add((pattern, flags))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                re.compile(pattern, flags)
            except Exception:
                continue
        if caught:
            warned.append((type(pattern), pattern, flags))
    for key in warned:
        for cache in _re_caches():
            cache.pop(key, None)
    gc.freeze()
