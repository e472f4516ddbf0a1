# What a child tells the zygote as its pytest ends, over a pipe of its own, and what the
# zygote learns from it for the next executions: the modules it imported from the
# interpreter's library and site-packages, the regular expressions it compiled, and what else
# it made that the zygote may keep (rewritten test modules, compiled modules, statement
# ranges, plugin objects' classes). The report: module names, NUL, the new patterns as JSON
# (never a raw NUL), NUL, what else the child made, as marshal data.
import gc
import json
import marshal
import os
import sys

from evootter_zygote import state
from evootter_zygote.shortcuts import (
    compiled,
    fixture_scan,
    learned_modules,
    patterns,
    rewrites,
    statement_ranges,
)

# The most a child reports (the zygote reads it as it comes, so it need not fit a pipe's
# buffer); a report that would be longer leaves out its rewritten modules, then patterns.
REPORT_BYTES = 4 << 20


def send(mods_w):
    """In the child, as pytest ends: the modules it imported from the interpreter's library
    and site-packages, and the regular expressions it compiled, for the zygote to have ready
    next time."""
    try:
        names = []
        for name, mod in list(sys.modules.items()):
            if name in state.ZYGOTE_MODULES or name.startswith("__"):
                continue
            f = getattr(mod, "__file__", None)
            if isinstance(f, str) and os.path.realpath(f).startswith(state.ROOTS):
                names.append(name)
        report = "\n".join(sorted(names)).encode()[: REPORT_BYTES // 4]
        new = patterns.new_keys()
        compiled_patterns = json.dumps(new).encode() if new else b""
        if len(report) + 1 + len(compiled_patterns) > REPORT_BYTES // 2:
            compiled_patterns = b""
        kept = b""
        holders = sorted(set(h for h in fixture_scan.NEW_HOLDER_CLASSES if type(h[0]) is str))
        for made in (
            (rewrites.NEW_REWRITES, compiled.NEW_COMPILES, statement_ranges.NEW_RANGES, holders),
            ([], compiled.NEW_COMPILES, statement_ranges.NEW_RANGES, holders),
            ([], [], statement_ranges.NEW_RANGES, holders),
            ([], [], [], holders),
        ):
            if any(made):
                kept = marshal.dumps(made)
                if len(report) + len(compiled_patterns) + 2 + len(kept) <= REPORT_BYTES:
                    break
                kept = b""
        view = memoryview(report + b"\0" + compiled_patterns + b"\0" + kept)
        while view:
            view = view[os.write(mods_w, view):]
    except BaseException:
        pass
    finally:
        try:
            os.close(mods_w)
        except OSError:
            pass


def learn(reported, copy):
    """In the zygote, after the child's end frame: what its report names, made ready for the
    next executions."""
    mods, _, rest = reported.partition(b"\0")
    new_patterns, _, kept = rest.partition(b"\0")
    names = [n for n in mods.decode(errors="replace").split("\n") if n]
    if names:
        learned_modules.learn(names, copy)
    if new_patterns:
        patterns.learn(new_patterns)
    if kept:
        _learn_kept(kept)


def _learn_kept(data):
    """Keeps, for the next executions, what a child reported it made that the zygote did not
    have: rewritten test modules, compiled modules, statement ranges, plugin objects' classes."""
    try:
        made_rewrites, compiles, ranges, holders = marshal.loads(data)
    except Exception:
        return
    fixture_scan.learn_holder_classes(holders)
    rewrites.learn(made_rewrites)
    compiled.learn(compiles)
    statement_ranges.learn(ranges)
    gc.freeze()
