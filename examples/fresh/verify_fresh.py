#!/usr/bin/env python3
"""Check the fresh-bug benchmark's instances and their measured labels (CI runs this).

For every ``examples/fresh/<name>/`` (built by ``materialize.py``, which this runs first):

* ``instance.toml`` names the instance, its focal functions exist in ``repo/`` and it starts
  from its candidates;
* ``golden_test.py`` (the test the maintainers' fix added or changed) fails on c_old and
  passes with ``golden.patch``;
* ``candidates/`` holds 8 ``test_*.py`` modules and ``expected.toml`` records for each its
  outcome on c_old and on the fix (``passed``, ``failed`` or ``error``, as pytest's junit XML
  has it), whether it is fail-to-pass, which of the kinds below it was written as, and why;
  every label is measured again here and must match;
* at least one candidate is F2P and at least three are not; none copies the golden test
  (fewer than half of the golden test's statements appear in any candidate).

Kinds (what the candidate imitates of what models write): ``f2p`` (reproduces the issue),
``broad_wrong`` (exercises much of the focal code with a wrong expectation), ``decoy``
(short, fails with the same exception type as the bug, for another reason), ``pins_bug``
(asserts the buggy behaviour), ``no_trigger`` (never reaches the bug), ``broken_import``
(imports or calls what does not exist), ``wrong_expectation`` (fails on both for another
reason than the bug).

Usage: python3 examples/fresh/verify_fresh.py [-v] [--offline] [NAME ...]
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FRESH = Path(__file__).resolve().parent
sys.path.insert(0, str(FRESH.parent))
import verify_examples as ve  # noqa: E402  (the bundled examples' checker: same pytest runs)

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    sys.exit("verify_fresh.py needs Python 3.11+ (tomllib)")

KINDS = {"f2p", "broad_wrong", "decoy", "pins_bug", "no_trigger", "broken_import", "wrong_expectation"}


def statements(source: str) -> list[str]:
    """The golden test functions' statements, each as its normalized source."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.stmt) and not isinstance(
                    stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass)
                ):
                    text = " ".join(ast.unparse(stmt).split())
                    if len(text) > 12:
                        out.append(text)
    return out


def copies_golden(golden: str, candidate: str) -> float:
    """The share of the golden test's statements a candidate holds verbatim (normalized)."""
    want = statements(golden)
    if not want:
        return 0.0
    have = set()
    for node in ast.walk(ast.parse(candidate)):
        if isinstance(node, ast.stmt):
            have.add(" ".join(ast.unparse(node).split()))
    return sum(1 for s in want if s in have) / len(want)


def run_together(copy: Path, cfg: dict, modules: dict[str, Path]) -> dict[str, str]:
    """Each module's outcome (passed, failed, error) from one pytest run of all of them in
    `copy`'s test directory, read from pytest's summary lines (`-rA`); {} when it did not run."""
    test_dir = copy / cfg["test_dir"]
    for name, source in modules.items():
        shutil.copyfile(source, test_dir / name)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_") and k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    entries = [str(copy)] + [str(copy / p) for p in cfg["pythonpath"] if p not in (".", "")]
    env.update(PYTHONPATH=os.pathsep.join(entries), PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", COLUMNS="200")
    targets = [str(Path(cfg["test_dir"]) / name) for name in modules]
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA",
           "--continue-on-collection-errors", *targets]
    try:
        out = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True,
                             timeout=ve.PYTEST_TIMEOUT).stdout
    except subprocess.TimeoutExpired:
        return {}
    finally:
        for name in modules:
            (test_dir / name).unlink(missing_ok=True)
    seen: dict[str, set[str]] = {}
    for line in out.splitlines():
        status, _, rest = line.partition(" ")
        if status not in ("PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"):
            continue
        node = rest.split(" - ")[0].split("::")[0]
        seen.setdefault(Path(node).name, set()).add(status)
    result = {}
    for name in modules:
        statuses = seen.get(name, set())
        if "ERROR" in statuses or not statuses:
            result[name] = "error"
        elif "FAILED" in statuses:
            result[name] = "failed"
        else:
            result[name] = "passed"
    return result


def verify(inst: Path, verbose: bool) -> ve.Report:
    rep = ve.Report(inst.name)
    try:
        cfg = tomllib.loads((inst / "instance.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        rep.problem(f"cannot read instance.toml: {exc}")
        return rep
    if cfg.get("name") != inst.name:
        rep.problem(f"instance.toml: name {cfg.get('name')!r} != directory name {inst.name!r}")
    for key in ("repo", "issue", "golden_patch", "golden_test", "initial_tests", "test_dir"):
        if not isinstance(cfg.get(key), str) or not (inst / cfg[key] if key != "test_dir" else inst).exists():
            rep.problem(f"instance.toml: `{key}` missing or names nothing")
    cfg.setdefault("pythonpath", ["."])
    if rep.problems:
        return rep
    repo = inst / cfg["repo"]
    for focal in cfg.get("focal", []):
        file, _, qualname = str(focal).partition("::")
        path = repo / file
        if not path.is_file() or not ve.find_qualname(ast.parse(path.read_text()), qualname):
            rep.problem(f"focal {focal} not found in repo/")
    if not cfg.get("focal"):
        rep.problem("instance.toml: no focal functions")

    cand_dir = inst / cfg["initial_tests"]
    files = sorted(p.name for p in cand_dir.glob("test_*.py"))
    if len(files) != ve.N_CANDIDATES:
        rep.problem(f"{len(files)} candidate tests, want {ve.N_CANDIDATES}")
    expected = tomllib.loads((cand_dir / "expected.toml").read_text()) if (cand_dir / "expected.toml").is_file() else {}
    if sorted(expected) != files:
        rep.problem(f"expected.toml tables {sorted(expected)} != candidate files {files}")
    golden_src = (inst / cfg["golden_test"]).read_text()
    for name in files:
        e = expected.get(name, {})
        if e.get("kind") not in KINDS:
            rep.problem(f"expected.toml [{name}]: kind {e.get('kind')!r} is not one of {sorted(KINDS)}")
        if e.get("old") not in ve.OUTCOMES or e.get("new") not in ve.OUTCOMES or not isinstance(e.get("f2p"), bool):
            rep.problem(f"expected.toml [{name}]: needs old, new (passed|failed|error) and f2p")
        if not isinstance(e.get("why"), str) or not e.get("why"):
            rep.problem(f"expected.toml [{name}]: needs why")
        share = copies_golden(golden_src, (cand_dir / name).read_text())
        if share >= 0.5:
            rep.problem(f"{name} holds {share:.0%} of the golden test's statements: it copies it")
    f2p = sum(1 for e in expected.values() if e.get("f2p"))
    if f2p < 1 or len(expected) - f2p < 3:
        rep.problem(f"{f2p} F2P candidates of {len(expected)}: want at least 1 and at least 3 that are not")
    if rep.problems:
        return rep

    with tempfile.TemporaryDirectory(prefix=f"fresh-{inst.name}-") as tmp:
        copies = {}
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
        for state in ("old", "new"):
            copies[state] = Path(tmp) / state
            shutil.copytree(repo, copies[state], ignore=ignore)
        if not ve.builtin_apply(copies["new"], inst / cfg["golden_patch"], rep):
            return rep
        junit = Path(tmp) / "junit.xml"
        modules = {"test_golden_fix.py": inst / cfg["golden_test"]}
        modules.update({name: cand_dir / name for name in files})

        def alone(state: str, name: str) -> str:
            outcome, _, out = ve.run_module(copies[state], cfg, modules[name], name, junit)
            if verbose:
                rep.logs.append(f"--- {name} on {state}\n{out}")
            return outcome

        # The nine modules run in one pytest per version (pytest's start-up is most of a
        # module's run); a module whose outcome there is not its label runs again alone,
        # which is what a label means, so a module that another one disturbs is not misjudged.
        together = {s: run_together(copies[s], cfg, modules) for s in ("old", "new")}
        want = {"test_golden_fix.py": ("failed", "passed")}
        want.update({name: (expected[name]["old"], expected[name]["new"]) for name in files})

        def outcomes(name: str) -> list[str]:
            got = [together[s].get(name) for s in ("old", "new")]
            if tuple(got) != want[name] or verbose:
                got = [alone(s, name) for s in ("old", "new")]
            return got

        got = outcomes("test_golden_fix.py")
        rep.row("golden test", "failed/passed", "/".join(got), got[0] != "passed" and got[1] == "passed")
        for name in files:
            e = expected[name]
            got = outcomes(name)
            f2p_now = got[0] != "passed" and got[1] == "passed"
            label = f"{name} [{e['kind']}]"
            rep.row(label, f"{e['old']}/{e['new']}", "/".join(got), got == [e["old"], e["new"]] and f2p_now == e["f2p"])
    return rep


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("-v", "--verbose", action="store_true", help="print pytest's output")
    ap.add_argument("--offline", action="store_true", help="build from the sdist cache only")
    a = ap.parse_args()
    build = [sys.executable, str(FRESH / "materialize.py"), *a.names] + (["--offline"] if a.offline else [])
    if subprocess.run(build).returncode != 0:
        print("materialize.py could not build every instance (above)", file=sys.stderr)
        return 1
    dirs = [FRESH / n for n in a.names] if a.names else sorted(p.parent for p in FRESH.glob("*/source.toml"))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        reports = list(pool.map(lambda d: verify(d, a.verbose), dirs))
    bad = 0
    for rep in reports:
        ve.print_report(rep)
        bad += bool(rep.problems)
    repos = {tomllib.loads((d / "source.toml").read_text()).get("repository") for d in dirs}
    print(f"\n{len(reports) - bad}/{len(reports)} fresh instances verified, from {len(repos)} repositories")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
