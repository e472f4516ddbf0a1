# Shortcut: installed distributions' metadata read once while the files are unchanged.
# Checked against cold runs by tests/warm.rs:
# a_plugin_installed_while_the_interpreter_lives_is_seen_as_a_cold_run_sees_it (a plugin
# installed, changed for another module of the same size, then removed, while the zygote
# lives).
import os
import stat

# importlib.metadata reads and parses every installed distribution's entry_points.txt twice a
# pytest run (pluggy's plugin loading, pytest's marking of plugins for assertion rewriting),
# whether the distribution has plugins or not: 1.5 ms a run with Debian's 36 distributions,
# 5.5 ms with 99. The zygote keeps each metadata file's text with the file's identity (device,
# inode, size, modification and change times), checked by one `stat` on every read, so a file
# that changed, appeared or went away is read again; and each text's entry points as (name,
# value, group), made into new EntryPoint objects on every call, as parsing makes them.
_METADATA_READS = {}
_ENTRY_POINT_TEXTS = {}


def keep():
    """Puts the two caches above in front of importlib.metadata's file reads and entry-point
    parsing, where this Python's importlib.metadata has them, and fills them with what a run
    reads."""
    try:
        import importlib.metadata as md
        import pathlib
    except Exception:
        return
    dist_cls = md.PathDistribution
    read = dist_cls.__dict__.get("read_text")
    if read is None or getattr(read, "_evootter", False):
        return

    def read_text(self, filename):
        path = self.__dict__.get("_path")
        if type(path) is not pathlib.PosixPath or type(filename) is not str:
            return read(self, filename)
        full = os.path.join(path, filename)
        try:
            st = os.stat(full)
        except (FileNotFoundError, NotADirectoryError):
            sig = None
        except OSError:
            return read(self, filename)
        else:
            if not stat.S_ISREG(st.st_mode):
                return read(self, filename)
            sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        kept = _METADATA_READS.get(full)
        if kept is not None and kept[0] == sig:
            return kept[1]
        text = read(self, filename)
        _METADATA_READS[full] = (sig, text)
        return text

    read_text._evootter = True
    dist_cls.read_text = read_text
    parse = md.EntryPoints.__dict__.get("_from_text")
    if isinstance(parse, staticmethod):
        parse = parse.__func__
        make = md.EntryPoint

        def _from_text(text):
            items = _ENTRY_POINT_TEXTS.get(text)
            if items is None:
                eps = list(parse(text))
                _ENTRY_POINT_TEXTS[text] = [(ep.name, ep.value, ep.group) for ep in eps]
                return iter(eps)
            return (make(name=n, value=v, group=g) for n, v, g in items)

        md.EntryPoints._from_text = staticmethod(_from_text)
    try:
        for dist in md.distributions():
            if any(ep.group == "pytest11" for ep in dist.entry_points):
                dist.files
    except Exception:
        pass
