#!/usr/bin/env python3
"""Build the fresh-bug instances from the package registry: nothing of their code is committed.

Each ``examples/fresh/<name>/source.toml`` names a real bug of a real open-source project by
two releases on PyPI: ``old``, the release that holds the bug (its sdist becomes ``repo/``,
c_old) and ``new``, the first release that holds the maintainers' fix. The golden patch is
the difference of ``fix_files`` between the two (the maintainers' own code), and the golden
test is the test the fix added or changed, cut out of ``new``'s test module. The sdists are
downloaded once (their sha256 is pinned in source.toml) into a cache and checked on every
build; ``repo/``, ``golden.patch`` and ``golden_test.py`` are written into the instance
directory (ignored by git) only when what they are built from changed.

    python3 examples/fresh/materialize.py [NAME ...] [--cache DIR] [--offline] [--force]
    python3 examples/fresh/materialize.py --pin PACKAGE VERSION    # the sha256 to pin

The cache is ``$EVOOTTER_FRESH_CACHE``, else ``/var/cache/evootter/fresh`` when writable,
else ``~/.cache/evootter/fresh``. ``--offline`` uses only what the cache holds.

source.toml:

    repository = "https://github.com/OWNER/NAME"   # where the bug was fixed
    license = "MIT"                                # the project's, shipped in its sdist
    package = "NAME"                               # the PyPI project
    old = "1.2.3"                                  # holds the bug
    old_sha256 = "..."                             # of the sdist
    new = "1.2.4"                                  # holds the fix
    new_sha256 = "..."
    fix_commit = "https://github.com/OWNER/NAME/commit/SHA"
    issue_url = "https://github.com/OWNER/NAME/issues/N"   # "" when the fix had no issue
    fix_files = ["pkg/mod.py"]                     # the golden patch: these files, old -> new
    fix_functions = ["pkg/mod.py::Class.method"]   # or: these definitions of old replaced by
                                                   # new's (a release that also moved or
                                                   # reworded other code)
    golden_test = ["tests/test_mod.py::test_x"]    # in new; Class::method for a method
    drop = ["tests/test_needs_numpy.py"]           # optional: left out of repo/
"""

from __future__ import annotations

import argparse
import ast
import difflib
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    sys.exit("materialize.py needs Python 3.11+ (tomllib)")

FRESH = Path(__file__).resolve().parent
INDEX = "https://pypi.org/simple/{}/"
# Built from the sources: the stamp says which sources, so a changed source.toml or a newer
# materialize.py rebuilds.
STAMP = ".materialized"
VERSION = "1"
# Left out of repo/. An sdist's `*.egg-info` stays: with repo/ on PYTHONPATH it is how
# importlib.metadata finds the package's version and entry points (Markdown names its own
# extensions through them; wcwidth's tests read its version).
SKIP = {"__pycache__", ".pytest_cache", ".git", ".tox", ".eggs"}


class Problem(Exception):
    """What is wrong with one instance, said so that the user can act on it."""


def cache_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    if os.environ.get("EVOOTTER_FRESH_CACHE"):
        return Path(os.environ["EVOOTTER_FRESH_CACHE"])
    system = Path("/var/cache/evootter/fresh")
    try:
        system.mkdir(parents=True, exist_ok=True)
        if os.access(system, os.W_OK):
            return system
    except OSError:
        pass
    return Path.home() / ".cache" / "evootter" / "fresh"


def normalize(package: str) -> str:
    return package.lower().replace("_", "-").replace(".", "-")


def sdist(package: str, version: str, sha256: str, cache: Path, offline: bool) -> Path:
    """The release's sdist in the cache, downloaded from PyPI if missing, its hash checked."""
    cache.mkdir(parents=True, exist_ok=True)
    for p in cache.glob(f"{sha256}-*"):
        if hashlib.sha256(p.read_bytes()).hexdigest() == sha256:
            return p
        p.unlink()
    if offline:
        raise Problem(f"{package} {version} is not in the cache {cache} (run without --offline)")
    req = urllib.request.Request(
        INDEX.format(normalize(package)),
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            files = json.load(r)["files"]
    except OSError as e:
        raise Problem(f"cannot read PyPI's index of {package}: {e}") from e
    match = [f for f in files if f["hashes"].get("sha256") == sha256]
    if not match:
        names = [f["filename"] for f in files if f"-{version}." in f["filename"]]
        raise Problem(
            f"no file of {package} on PyPI has the pinned sha256 {sha256[:12]}... "
            f"(files of {version}: {names or 'none'}); fix old_sha256/new_sha256 in source.toml"
        )
    f = match[0]
    try:
        with urllib.request.urlopen(f["url"], timeout=120) as r:
            data = r.read()
    except OSError as e:
        raise Problem(f"cannot download {f['filename']}: {e}") from e
    if hashlib.sha256(data).hexdigest() != sha256:
        raise Problem(f"{f['filename']} downloaded with another sha256 than pinned")
    out = cache / f"{sha256}-{f['filename']}"
    tmp = out.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(out)
    return out


def unpack(archive: Path, into: Path) -> Path:
    """The sdist's files under `into`; the directory holding them (the sdist's one root)."""
    name = archive.name
    if name.endswith((".tar.gz", ".tgz", ".tar.bz2")):
        with tarfile.open(archive) as t:
            t.extractall(into, filter="data")
    elif name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(into)
    else:
        raise Problem(f"{name}: not an sdist this script unpacks (.tar.gz, .zip)")
    roots = [p for p in into.iterdir()]
    return roots[0] if len(roots) == 1 and roots[0].is_dir() else into


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True) if path.is_file() else []


def definition(tree: ast.Module, qualname: str) -> ast.stmt | None:
    """The function or class `qualname` (`Class.method`) defines at `tree`'s top."""
    scope: list[ast.stmt] = tree.body
    node = None
    for part in qualname.split("."):
        node = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        scope = node.body
    return node


def lines_of(node: ast.stmt) -> tuple[int, int]:
    """`node`'s lines, decorators included, as a 0-based half-open range."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first - 1, node.end_lineno or node.lineno


def spliced(old: Path, new: Path, file: str, qualnames: list[str]) -> list[str]:
    """`file` of old with each of `qualnames` replaced by its definition in new."""
    a, b = read(old / file), read(new / file)
    ta, tb = ast.parse("".join(a)), ast.parse("".join(b))
    spans = []
    for q in qualnames:
        na, nb = definition(ta, q), definition(tb, q)
        if na is None or nb is None:
            raise Problem(f"fix function {file}::{q} is not in both releases")
        (fa, la), (fb, lb) = lines_of(na), lines_of(nb)
        spans.append((fa, la, b[fb:lb]))
    for fa, la, body in sorted(spans, key=lambda s: s[0], reverse=True):
        a[fa:la] = body
    return a


def golden_patch(old: Path, new: Path, files: list[str], functions: list[str] | None = None) -> str:
    """`files` from old to new, and `functions` (FILE::QUALNAME) of old replaced by new's, as
    one unified diff with a/ and b/ prefixes (git apply's form)."""
    out = io.StringIO()
    by_file: dict[str, list[str]] = {}
    for f in functions or []:
        file, _, q = f.partition("::")
        by_file.setdefault(file, []).append(q)
    if set(by_file) & set(files):
        raise Problem("a file is in both fix_files and fix_functions")
    changes = [(f, read(old / f), read(new / f)) for f in files]
    changes += [(f, read(old / f), spliced(old, new, f, qs)) for f, qs in by_file.items()]
    for f, a, b in sorted(changes):
        if a == b:
            raise Problem(f"the fix changes nothing in {f}")
        for lines in (a, b):
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
        out.writelines(
            difflib.unified_diff(
                a,
                b,
                "/dev/null" if not a else f"a/{f}",
                "/dev/null" if not b else f"b/{f}",
                n=3,
            )
        )
    return out.getvalue()


def cut_test(source: str, wanted: list[str], module: str) -> str:
    """The test module `source` with only the tests `wanted` (`test_x`, `Class::test_y`): its
    imports, helpers and fixtures stay, every other test function and test class goes."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    tops = {w.split("::")[0] for w in wanted}
    methods = {tuple(w.split("::")[:2]) for w in wanted if "::" in w}
    drop: list[tuple[int, int]] = []

    def collected(cls: ast.ClassDef) -> bool:
        """Whether pytest collects the class: `Test*`, or a unittest case by its base."""
        bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases]
        return cls.name.startswith("Test") or any(b.endswith(("TestCase", "Test", "Tests")) for b in bases)

    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if node.name in tops:
                found.add(node.name)
            else:
                drop.append(lines_of(node))
        elif isinstance(node, ast.ClassDef) and (node.name in tops or collected(node)):
            if node.name not in tops:
                drop.append(lines_of(node))
                continue
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                    if (node.name, sub.name) in methods:
                        found.add(f"{node.name}::{sub.name}")
                    else:
                        drop.append(lines_of(sub))
    missing = [w for w in wanted if w not in found]
    if missing:
        raise Problem(f"golden test {missing} not found in {module} of the new release")
    for first, last in sorted(drop, reverse=True):
        del lines[first:last]
    return "".join(lines)


def materialize(inst: Path, cache: Path, offline: bool, force: bool) -> str:
    src_toml = inst / "source.toml"
    spec = tomllib.loads(src_toml.read_text())
    for key in ("package", "old", "old_sha256", "new", "new_sha256", "golden_test"):
        if not spec.get(key):
            raise Problem(f"{src_toml}: `{key}` is missing")
    if not spec.get("fix_files") and not spec.get("fix_functions"):
        raise Problem(f"{src_toml}: name the fix with fix_files or fix_functions")
    stamp_text = json.dumps(
        {
            "version": VERSION,
            "source": hashlib.sha256(src_toml.read_bytes()).hexdigest(),
            "script": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        }
    )
    stamp = inst / STAMP
    repo = inst / "repo"
    if not force and stamp.is_file() and stamp.read_text() == stamp_text and repo.is_dir():
        return "up to date"
    old_archive = sdist(spec["package"], spec["old"], spec["old_sha256"], cache, offline)
    new_archive = sdist(spec["package"], spec["new"], spec["new_sha256"], cache, offline)
    with tempfile.TemporaryDirectory(prefix=f"fresh-{inst.name}-") as tmp:
        old = unpack(old_archive, Path(tmp) / "old")
        new = unpack(new_archive, Path(tmp) / "new")
        patch = golden_patch(old, new, spec.get("fix_files", []), spec.get("fix_functions"))
        by_module: dict[str, list[str]] = {}
        for t in spec["golden_test"]:
            module, _, name = t.partition("::")
            by_module.setdefault(module, []).append(name)
        if len(by_module) != 1:
            raise Problem(f"golden_test names {len(by_module)} modules; one is taken")
        ((module, names),) = by_module.items()
        if not (new / module).is_file():
            raise Problem(f"golden test module {module} is not in {spec['package']} {spec['new']}")
        golden = cut_test((new / module).read_text(encoding="utf-8"), names, module)
        if repo.exists():
            shutil.rmtree(repo)
        drop = set(spec.get("drop", []))
        absent = sorted(d for d in drop if not (old / d).exists())
        if absent:
            raise Problem(f"drop names what {spec['package']} {spec['old']} does not hold: {absent}")

        def ignore(dir_: str, names_: list[str]) -> list[str]:
            rel = Path(dir_).relative_to(old)
            return [
                n
                for n in names_
                if n in SKIP
                or n.endswith(".pyc")
                or (rel / n).as_posix() in drop
            ]

        shutil.copytree(old, repo, ignore=ignore)
    (inst / "golden.patch").write_text(patch)
    (inst / "golden_test.py").write_text(golden)
    stamp.write_text(stamp_text)
    return f"built from {spec['package']} {spec['old']} -> {spec['new']}"


def pin(package: str, version: str) -> int:
    """Print the sha256 of a release's sdist, for source.toml."""
    req = urllib.request.Request(
        INDEX.format(normalize(package)),
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        files = json.load(r)["files"]
    prefix = f"{normalize(package).replace('-', '_')}-{version}."
    hits = [
        f
        for f in files
        if f["filename"].lower().replace("-", "_").startswith(prefix.replace("-", "_"))
        and f["filename"].endswith((".tar.gz", ".zip", ".tar.bz2"))
    ]
    for f in hits:
        print(f"{f['filename']}  sha256 = \"{f['hashes']['sha256']}\"")
    if not hits:
        print(f"no sdist of {package} {version} on PyPI", file=sys.stderr)
    return 0 if hits else 1


def main() -> int:
    if sys.argv[1:2] == ["--pin"]:
        if len(sys.argv) != 4:
            sys.exit("usage: materialize.py --pin PACKAGE VERSION")
        return pin(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="instance directories under examples/fresh (default: all)")
    ap.add_argument("--cache", help="where the sdists are kept")
    ap.add_argument("--offline", action="store_true", help="use only the cache")
    ap.add_argument("--force", action="store_true", help="rebuild even when up to date")
    a = ap.parse_args()
    dirs = [FRESH / n for n in a.names] if a.names else sorted(p.parent for p in FRESH.glob("*/source.toml"))
    cache = cache_dir(a.cache)
    bad = 0
    for inst in dirs:
        try:
            print(f"{inst.name}: {materialize(inst, cache, a.offline, a.force)}")
        except (Problem, OSError, KeyError, SyntaxError) as e:
            bad += 1
            print(f"{inst.name}: {e}", file=sys.stderr)
    if bad:
        print(f"{bad} of {len(dirs)} instances could not be built", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
