# A container's copy, kept by the zygote for the Docker backend: a run's files staged before
# it and its results collected after it, the whole copy listed, and the copy put back. Every
# listing of a zygote's copy comes from here, so the rescan compares like with like.
import os
import stat


def _remove(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            import shutil

            shutil.rmtree(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


def _extract(copy, blob):
    """Unpacks a tar of files into the copy, as `tar -xf -` run there by root would: modes,
    owners and times from the archive, missing directories made."""
    if blob:
        import io
        import tarfile

        with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
            tar.extractall(copy)


def stage(copy, what, blob):
    """Before a run: the staged files in place, the run directory fresh, the files the run
    must not see removed, then the mark every later change is newer than."""
    _extract(copy, blob)
    for d in what.get("fresh", []):
        _remove(d)
    for d in what.get("mkdir", []):
        os.makedirs(d, exist_ok=True)
    for rel in what.get("remove", []):
        try:
            os.unlink(os.path.join(copy, rel))
        except OSError:
            pass
    mark = what["mark"]
    os.makedirs(os.path.dirname(mark), exist_ok=True)
    with open(mark, "wb"):
        pass
    os.utime(mark)


_KINDS = (
    (stat.S_ISREG, "f"),
    (stat.S_ISDIR, "d"),
    (stat.S_ISLNK, "l"),
    (stat.S_ISFIFO, "p"),
    (stat.S_ISSOCK, "s"),
    (stat.S_ISCHR, "c"),
    (stat.S_ISBLK, "b"),
)


def _stamp(rel, st):
    """One entry as `find -printf '%y %m %s %T@ %C@ %i %p\\0%l\\0'` prints it (times to the
    nanosecond, which is all the comparison needs: every listing of a zygote's copy comes from
    here)."""
    kind = next((k for test, k in _KINDS if test(st.st_mode)), "U")
    head = "%s %o %d %d.%09d %d.%09d %d " % (
        kind,
        st.st_mode & 0o7777,
        st.st_size,
        st.st_mtime_ns // 10**9,
        st.st_mtime_ns % 10**9,
        st.st_ctime_ns // 10**9,
        st.st_ctime_ns % 10**9,
        st.st_ino,
    )
    link = os.readlink(rel) if kind == "l" else b""
    return head.encode() + rel + b"\0" + link + b"\0"


def _walk(rel, out, changed, since):
    """Lists `rel` (bytes, `./`-relative to the copy) and, for a directory, all below it;
    notes the files whose status changed at or after `since`."""
    try:
        st = os.lstat(rel)
    except OSError:
        return
    out.append(_stamp(rel, st))
    if stat.S_ISREG(st.st_mode) and since is not None and st.st_ctime_ns >= since:
        changed.append(rel)
    if stat.S_ISDIR(st.st_mode):
        try:
            names = sorted(os.listdir(rel))
        except OSError:
            return
        for name in names:
            _walk(rel + b"/" + name, out, changed, since)


def list_copy(copy, rels=None, since=None):
    """The listing of the whole copy (or of `rels` and below), and the files changed since."""
    out, changed = [], []
    if rels is None:
        for name in sorted(os.listdir(b".")):
            _walk(b"./" + name, out, changed, since)
    else:
        for rel in rels:
            _walk(b"./" + os.fsencode(rel), out, changed, since)
    return b"".join(out) if since is None else (b"".join(out), changed)


def _sums(rels):
    """`sha256sum` lines for the files that can be read."""
    import hashlib

    lines = []
    for rel in rels:
        try:
            with open(rel, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            continue
        if b"\\" in rel or b"\n" in rel:
            rel = rel.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")
            lines.append(b"\\" + digest.encode() + b"  " + rel + b"\n")
        else:
            lines.append(digest.encode() + b"  " + rel + b"\n")
    return b"".join(lines)


def collect(copy, c):
    """After a run: the files asked for, the listing, the sums of the staged files and of every
    file changed since the mark, each section ended by `sep`; then what was made only for
    staging is deleted."""
    sep = c["sep"].encode()
    parts = []
    for path in c.get("cat", []):
        try:
            with open(path, "rb") as f:
                parts.append(f.read())
        except OSError:
            parts.append(b"")
    try:
        since = os.stat(c["mark"]).st_mtime_ns
    except OSError:
        since = 0
    listing, changed = list_copy(copy, since=since)
    parts.append(listing)
    staged = [b"./" + os.fsencode(r) for r in c.get("sums", [])]
    parts.append(_sums(changed + [r for r in staged if r not in changed]))
    outside = c.get("outside")
    if outside is not None:
        # A container's writable places outside the copy: what the run left there is named
        # and removed, so the next run starts from the image.
        keep = set(outside.get("keep", []))
        written = []
        for d in outside.get("dirs", []):
            try:
                names = sorted(os.listdir(d))
            except OSError:
                continue
            for n in names:
                p = os.path.join(d, n)
                if p in keep:
                    continue
                written.append(os.fsencode(p))
                _remove(p)
        parts.append(b"\0".join(written))
    for rel in c.get("rm", []):
        _remove(os.path.join(copy, rel))
    return sep.join(parts) + sep


def restore(copy, r, blob):
    """Puts the copy back: deletes what the run made or changed, unpacks the repository's
    version of what it changed, sets directory modes back; answers with a listing of what was
    put back."""
    for rel in r.get("rm", []):
        _remove(os.path.join(copy, rel))
    _extract(copy, blob)
    for rel, mode in r.get("chmod", []):
        os.chmod(os.path.join(copy, rel), mode)
    return list_copy(copy, r.get("list", []))
