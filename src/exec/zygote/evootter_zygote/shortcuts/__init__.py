# The zygote's shortcuts: speed-ups of a run whose results must equal a cold run's, one
# module each. Each says why it is worth having and which test checks it against cold runs
# (tests/warm.rs compares warm and cold logs on every bundled example, under the default
# interpreter and Debian's pytest 7, besides each shortcut's own test). What they share: work
# is kept for children only when making it raised and warned of nothing.


def quietly(make, *args, **kw):
    """What `make(*args, **kw)` returns when it neither raises nor warns (every warning recorded,
    none shown), else None: only such work may be kept for children, whose runs must show
    every warning a cold run shows."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            made = make(*args, **kw)
        except Exception:
            return None
    return None if caught else made
