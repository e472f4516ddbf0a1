# Shortcut: pytest's fixture scan of every plugin module and plugin object at each session
# start gets only the names that can be fixtures, while what it scans is unchanged.
# Checked against cold runs by tests/warm.rs:
# a_warm_run_offers_the_fixtures_a_cold_run_offers (a conftest adds a fixture to a plugin
# module) and a_fixture_added_to_a_plugin_class_is_seen_as_a_cold_run_sees_it (to a plugin
# object's class, then takes it away).
import sys

# pytest's fixture manager looks at every attribute of every plugin module for fixtures at each
# session start (a tenth to a sixth of a warm run, most of it on names that are plainly not
# fixtures: imported modules, classes, functions, constants). For the plugin modules the
# zygote holds, the names worth looking at are found once; the fixture manager's `dir()` gets
# only those, in the order `dir()` gives them, while the module's namespace is exactly what it
# was when they were found (checked on every call; any change and the real `dir()` answers).
# pytest then does for each remaining name what it always does, so what it registers and
# warns about is what a cold run's does.
FIXTURE_SCANS = {}

# What pytest's fixture scan reads of an attribute's value: pytest 7's mark
# `_pytestfixturefunction`, 8.4+'s `_fixture_function_marker` and `_fixture_function`, the
# `__wrapped__` chain, a mock's `_mock_name`. A value that has none of them, and whose type
# runs no code when a name is missing, is skipped by the scan without anything happening.
_FIXTURE_LOOKS = ("_pytestfixturefunction", "_fixture_function_marker", "_fixture_function", "__wrapped__", "_mock_name")
_PLAIN_DATA = (int, float, complex, str, bytes, bool, type(None), frozenset, tuple, list, dict, set)
_ABSENT = object()


def _runs_code_on_a_miss(kind):
    """Whether looking up a missing name on an instance of `kind` can run code: some class
    of its own (for a class, its metaclass) hooks attribute access. typing's aliases and
    special forms do, only to answer from the alias's origin or to refuse: they are looked at
    through their origin instead."""
    import types

    for k in kind.__mro__:
        if k in (object, type, types.ModuleType, types.BuiltinFunctionType):
            continue
        if "__getattribute__" in k.__dict__:
            return True
        if "__getattr__" in k.__dict__ and k.__module__ != "typing":
            return True
    return False


def _inert(value, depth=0):
    """Whether pytest's fixture scan passes over `value` without running any code or
    finding anything."""
    import inspect
    import types

    kind = type(value)
    if kind in _PLAIN_DATA:
        return True
    if kind is types.ModuleType and "__getattr__" in value.__dict__:
        return False
    if depth > 4 or _runs_code_on_a_miss(kind):
        return False
    try:
        if any(inspect.getattr_static(value, name, _ABSENT) is not _ABSENT for name in _FIXTURE_LOOKS):
            return False
        if kind.__module__ == "typing":
            origin = inspect.getattr_static(value, "__origin__", None)
            return origin is None or _inert(origin, depth + 1)
    except Exception:
        return False
    return True


def scan_plugin_modules(plugins):
    """Finds, for each plugin module not yet scanned (or changed since), the names of its
    attributes that pytest's fixture scan must see."""
    import types

    for module in plugins:
        if not isinstance(module, types.ModuleType):
            continue
        entry = FIXTURE_SCANS.get(id(module))
        if entry is not None and _unchanged(module, entry):
            continue
        space = module.__dict__
        if "__dir__" in space or not all(isinstance(k, str) for k in space):
            continue
        keys, values = tuple(space), tuple(space.values())
        names = sorted(k for k, v in zip(keys, values) if not _inert(v))
        FIXTURE_SCANS[id(module)] = (module, keys, values, names)


# The same for plugin objects (a session, a terminal reporter, a capture manager: made anew in
# every run, of classes the zygote holds): by class, the names of the class's and its bases'
# attributes that an instance's scan must see. Skipped are only a plain function or plain
# data found first along the MRO (getting it from an instance runs no code and gives nothing
# a fixture scan takes); the instance's own attributes are always seen. Any class along the
# MRO changed, and the real `dir()` answers.
CLASS_SCANS = {}
# In a child: the classes of plugin objects it scanned that the zygote had not.
NEW_HOLDER_CLASSES = []


def _scan_class(kind):
    import types

    mro = kind.__mro__
    if _runs_code_on_a_miss(kind) or any("__dir__" in k.__dict__ for k in mro if k is not object):
        return
    first = {}
    for k in mro:
        for name, value in k.__dict__.items():
            first.setdefault(name, value)
    if not all(type(n) is str for n in first):
        return
    names = frozenset(
        n
        for n, v in first.items()
        if not (type(v) in _PLAIN_DATA or (type(v) is types.FunctionType and _inert(v)))
    )
    spaces = tuple((tuple(k.__dict__), tuple(k.__dict__.values())) for k in mro)
    CLASS_SCANS[id(kind)] = (kind, mro, spaces, names)


def _class_unchanged(kind, entry):
    return (
        entry[0] is kind
        and kind.__mro__ is entry[1]
        and all(_same_space(k.__dict__, keys, values) for k, (keys, values) in zip(entry[1], entry[2]))
    )


def learn_holder_classes(items):
    """Scans the classes of plugin objects a child reported, found by module and qualified
    name among what the zygote holds (nothing is imported for them)."""
    for module_name, qualname in items[:64]:
        kind = sys.modules.get(module_name)
        for part in qualname.split("."):
            kind = getattr(kind, part, None)
        if isinstance(kind, type) and id(kind) not in CLASS_SCANS:
            _scan_class(kind)


def _unchanged(module, entry):
    return entry[0] is module and _same_space(module.__dict__, entry[1], entry[2])


def _same_space(space, keys, values):
    """Whether a namespace holds exactly these keys and values, each the same object."""
    import operator

    return (
        len(space) == len(keys)
        and all(map(operator.is_, space, keys))
        and all(map(operator.is_, space.values(), values))
    )


def _fixture_dir(*args):
    """`dir()` as pytest's fixture module sees it: a scanned plugin module, unchanged, gives
    only the names that can matter to a fixture scan."""
    if len(args) == 1:
        holder = args[0]
        entry = FIXTURE_SCANS.get(id(holder))
        if entry is not None and _unchanged(holder, entry):
            return list(entry[3])
        kind = type(holder)
        scan = CLASS_SCANS.get(id(kind))
        if scan is not None and _class_unchanged(kind, scan):
            try:
                own = object.__getattribute__(holder, "__dict__")
            except AttributeError:
                own = {}
            if type(own) is dict and all(type(n) is str for n in own):
                return sorted(scan[3].union(own))
        elif scan is None and not isinstance(holder, (type, type(sys))) and "<" not in kind.__qualname__:
            NEW_HOLDER_CLASSES.append((kind.__module__, kind.__qualname__))
    elif not args:
        # `dir()` names the caller's local names, not this function's.
        return sorted(sys._getframe(1).f_locals)
    return dir(*args)


def shorten():
    """Gives pytest's fixture module the `dir()` above, where it has one scan that uses it."""
    try:
        import _pytest.fixtures as fixtures
    except Exception:
        return
    if "dir" not in fixtures.__dict__:
        fixtures.dir = _fixture_dir
