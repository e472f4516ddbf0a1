# What the zygote imports before any run (pytest, its built-in plugins, the installed
# plugins), where a module it holds may come from, and which of its modules came from the
# copy (a zygote that holds any cannot serve: a mutant could be shadowed by it).
import os
import sys
import sysconfig

# What the installed plugins' entry points gave (pytest registers them during its
# configuration, after `get_config`).
ENTRY_PLUGINS = []


def preload():
    """pytest, its built-in plugins and the installed plugins, as a run would import them."""
    import pytest  # noqa: F401
    import _pytest.config

    for name in list(_pytest.config.default_plugins) + ["pytester", "legacypath"]:
        try:
            __import__("_pytest." + name)
        except Exception:
            pass
    import _pytest.junitxml  # noqa: F401
    import _pytest.assertion.rewrite  # noqa: F401

    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group="pytest11"):
            try:
                ENTRY_PLUGINS.append(ep.load())
            except Exception:
                pass
    except Exception:
        pass


def outside_roots():
    """Where modules may come from to be imported before the fork: the interpreter's own
    library and site-packages, never the copy."""
    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            roots.add(os.path.realpath(p) + "/")
    try:
        import site

        for p in site.getsitepackages() + [site.getusersitepackages()]:
            roots.add(os.path.realpath(p) + "/")
    except Exception:
        pass
    return tuple(roots)


def from_copy(copy):
    found = []
    prefix = copy.rstrip("/") + "/"
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and os.path.abspath(f).startswith(prefix):
            found.append(name)
    return sorted(found)
