#!/usr/bin/env python3
"""Verify the bundled benchmark instances in ``examples/``.

For every ``examples/<name>/instance.toml`` this script checks that

* ``instance.toml`` has the expected shape and every focal function
  (``FILE::QUALNAME``) exists in ``repo/``;
* ``repo/`` holds no byte-code, 150+ lines of library code and its own test
  suite of 6+ tests, which passes on c_old (``repo/``) and on c_old with
  ``golden.patch`` applied;
* ``golden.patch`` applies cleanly (``git apply --check``, or a built-in
  strict applier when git is missing or ``--no-git`` is given);
* ``golden_test.py`` is fail-to-pass (fails on c_old, passes after the patch);
* ``candidates/`` holds exactly 8 ``test_*.py`` modules (10-40 lines each),
  and ``candidates/expected.toml`` records, for each of them, the real
  outcome on c_old and on the fixed code ("passed", "failed" or "error", as
  pytest's junit XML reports it) and whether it is fail-to-pass.

Each test module is run on its own from a temporary copy of the repository,
placed in the instance's ``test_dir``, with ``python3 -m pytest -p
no:cacheprovider`` and ``PYTHONPATH`` set to the copy plus the instance's
``pythonpath`` entries.  Only the standard library and pytest (run as a
subprocess) are used.  Exits non-zero on any mismatch.

Usage: python3 examples/verify_examples.py [--no-git] [-v] [INSTANCE ...]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        sys.exit("verify_examples.py needs Python 3.11+ (tomllib) or the tomli package")

EXAMPLES = Path(__file__).resolve().parent
OUTCOMES = ("passed", "failed", "error")
N_CANDIDATES = 8
INSTANCE_KEYS = {
    "name": str,
    "description": str,
    "repo": str,
    "issue": str,
    "golden_patch": str,
    "golden_test": str,
    "initial_tests": str,
    "test_dir": str,
    "pythonpath": list,
    "focal": list,
    "run": dict,
}
RUN_KEYS = ("tests", "mutants", "seed")
PYTEST_TIMEOUT = 300


class Report:
    """Collects table rows and problems for one instance."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rows: list[tuple[str, str, str, str]] = []
        self.problems: list[str] = []
        self.logs: list[str] = []

    def problem(self, msg: str) -> None:
        self.problems.append(msg)

    def row(self, label: str, expected: str, actual: str, ok: bool) -> None:
        self.rows.append((label, expected, actual, "ok" if ok else "MISMATCH"))
        if not ok:
            self.problem(f"{label}: expected {expected}, got {actual}")


# --------------------------------------------------------------------------
# static checks


def find_qualname(tree: ast.Module, qualname: str) -> bool:
    """True if ``Class.method`` / ``func`` / ``outer.inner`` is defined in *tree*."""
    scope: list[ast.stmt] = tree.body
    parts = qualname.split(".")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        found = None
        for node in scope:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part:
                found = node
        if found is None:
            return False
        if last:
            return isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef))
        scope = found.body
    return False


SCRIPT_STEPS = {
    "localize_files", "localize_functions", "localize_refine", "context_imports",
    "context_location", "morph_issue", "generate", "select", "crossover", "repair",
}


def check_script(inst: Path, cfg: dict, rep: Report) -> None:
    """The recorded model replies: known steps, and a `generate` reply that writes exactly the
    candidate files, so the full workflow starts from the same population as candidate mode."""
    path = inst / cfg["llm_script"]
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        rep.problem(f"llm_script {path.name}: {e}")
        return
    entries = data["entries"] if isinstance(data, dict) else data
    for i, e in enumerate(entries):
        if e.get("step") not in SCRIPT_STEPS or not isinstance(e.get("reply"), str):
            rep.problem(f"llm_script entry {i}: unknown step or no reply: {e.get('step')!r}")
    # Heterogeneous prompting's one-test replies (examples/add_variant_replies.py) are tagged:
    # the single-prompting reply is the one that writes the candidates.
    generate = [e["reply"] for e in entries
                if e.get("step") == "generate" and e.get("variant") != "heterogeneous"]
    cands = sorted((inst / cfg["initial_tests"]).glob("test_*.py"))
    if len(generate) != 1:
        rep.problem(f"llm_script: expected one generate reply, found {len(generate)}")
        return
    for c in cands:
        if f"### {c.name}\n```python\n{c.read_text()}```" not in generate[0]:
            rep.problem(f"llm_script: the generate reply does not hold {c.name} as in candidates/")


def check_static(inst: Path, cfg: dict, rep: Report) -> None:
    for key, typ in INSTANCE_KEYS.items():
        if not isinstance(cfg.get(key), typ):
            rep.problem(f"instance.toml: `{key}` missing or not a {typ.__name__}")
    if rep.problems:
        return
    if cfg["name"] != inst.name:
        rep.problem(f"instance.toml: name {cfg['name']!r} != directory name {inst.name!r}")
    for key in RUN_KEYS:
        if not isinstance(cfg["run"].get(key), int):
            rep.problem(f"instance.toml: [run].{key} missing or not an int")
    for key in ("repo", "issue", "golden_patch", "golden_test", "initial_tests"):
        if not (inst / cfg[key]).exists():
            rep.problem(f"{cfg[key]} does not exist")
    if "llm_script" in cfg:
        check_script(inst, cfg, rep)
    repo = inst / cfg["repo"]
    if not (repo / cfg["test_dir"]).is_dir():
        rep.problem(f"test_dir {cfg['test_dir']!r} is not a directory of the repo")

    junk = [p for p in repo.rglob("*") if p.name in ("__pycache__", ".pytest_cache") or p.suffix == ".pyc"]
    if junk:
        rep.problem(f"repo contains byte-code/cache files: {[str(p.relative_to(repo)) for p in junk[:3]]}")

    test_dir = (repo / cfg["test_dir"]).resolve()
    lib_lines = sum(
        len(p.read_text().splitlines())
        for p in repo.rglob("*.py")
        if test_dir not in p.resolve().parents
    )
    rep.logs.append(f"library lines: {lib_lines}")
    if lib_lines < 150:
        rep.problem(f"only {lib_lines} lines of library code (want 150+)")

    if not cfg["focal"]:
        rep.problem("focal list is empty")
    for focal in cfg["focal"]:
        file, sep, qualname = str(focal).partition("::")
        path = repo / file
        if not sep or not file.endswith(".py") or not qualname:
            rep.problem(f"focal {focal!r} is not FILE::QUALNAME")
        elif not path.is_file():
            rep.problem(f"focal file {file} does not exist")
        elif not find_qualname(ast.parse(path.read_text(), str(path)), qualname):
            rep.problem(f"focal {focal} not found")

    patch = (inst / cfg["golden_patch"]).read_text()
    for line in patch.splitlines():
        if line.startswith("--- ") and not (line.startswith("--- a/") or line == "--- /dev/null"):
            rep.problem(f"golden.patch: header without a/ prefix: {line}")
        if line.startswith("+++ ") and not (line.startswith("+++ b/") or line == "+++ /dev/null"):
            rep.problem(f"golden.patch: header without b/ prefix: {line}")


def load_expected(inst: Path, cfg: dict, rep: Report) -> dict[str, dict]:
    cand_dir = inst / cfg["initial_tests"]
    files = sorted(p.name for p in cand_dir.glob("test_*.py"))
    others = sorted(
        p.name for p in cand_dir.iterdir() if p.name not in files and p.name != "expected.toml"
    )
    if others:
        rep.problem(f"unexpected files in {cfg['initial_tests']}/: {others}")
    if len(files) != N_CANDIDATES:
        rep.problem(f"{len(files)} candidate tests, want exactly {N_CANDIDATES}")
    exp_path = cand_dir / "expected.toml"
    if not exp_path.is_file():
        rep.problem("candidates/expected.toml is missing")
        return {}
    expected = tomllib.loads(exp_path.read_text())
    if sorted(expected) != files:
        rep.problem(
            f"expected.toml tables {sorted(expected)} do not match candidate files {files}"
        )
    for name, entry in expected.items():
        if entry.get("old") not in OUTCOMES or entry.get("new") not in OUTCOMES:
            rep.problem(f"expected.toml [{name}]: old/new must be one of {OUTCOMES}")
        if not isinstance(entry.get("f2p"), bool) or not isinstance(entry.get("why"), str):
            rep.problem(f"expected.toml [{name}]: needs f2p (bool) and why (str)")
        elif entry["f2p"] != (entry.get("old") != "passed" and entry.get("new") == "passed"):
            rep.problem(f"expected.toml [{name}]: f2p={entry['f2p']} contradicts old/new")
    for name in files:
        n = len((cand_dir / name).read_text().splitlines())
        if not 10 <= n <= 40:
            rep.problem(f"{name}: {n} lines, want 10-40")
    f2p = [n for n in files if expected.get(n, {}).get("f2p")]
    if files and files[0] in f2p:
        rep.problem(f"the first candidate in name order ({files[0]}) must not be F2P")
    return {n: expected[n] for n in files if n in expected}


# --------------------------------------------------------------------------
# patching


def git_apply(repo: Path, patch: Path, rep: Report) -> bool:
    for args in (["--check"], []):
        proc = subprocess.run(
            ["git", "apply", *args, str(patch)], cwd=repo, capture_output=True, text=True
        )
        if proc.returncode != 0:
            rep.problem(f"git apply {' '.join(args)} failed: {proc.stderr.strip()}")
            return False
    return True


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def builtin_apply(repo: Path, patch: Path, rep: Report) -> bool:
    """Strict unified-diff applier (exact context, small offsets allowed)."""
    lines = patch.read_text().splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if not lines[i].startswith("--- "):
            i += 1
            continue
        src = lines[i][4:].strip()
        dst = lines[i + 1][4:].strip()
        i += 2
        target = dst[2:] if dst != "/dev/null" else src[2:]
        path = repo / target
        text = [] if src == "/dev/null" else path.read_text().splitlines(keepends=True)
        offset = 0
        while i < len(lines) and lines[i].startswith("@@"):
            m = HUNK.match(lines[i])
            if not m:
                rep.problem(f"golden.patch: bad hunk header {lines[i].strip()}")
                return False
            start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
            i += 1
            old, new = [], []
            while i < len(lines) and lines[i][:1] in (" ", "-", "+", "\\"):
                tag, body = lines[i][:1], lines[i][1:]
                if tag == "\\":  # "\ No newline at end of file"
                    for seq in (old, new):
                        if seq and seq[-1].endswith("\n"):
                            seq[-1] = seq[-1][:-1]
                elif tag == " ":
                    old.append(body)
                    new.append(body)
                elif tag == "-":
                    old.append(body)
                else:
                    new.append(body)
                i += 1
            pos = start + offset
            for delta in sorted(range(-50, 51), key=abs):
                p = pos + delta
                if 0 <= p <= len(text) and text[p : p + len(old)] == old:
                    text[p : p + len(old)] = new
                    offset += len(new) - len(old) + delta
                    break
            else:
                rep.problem(f"golden.patch: hunk at line {start + 1} of {target} does not apply")
                return False
        if dst == "/dev/null":
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(text))
    return True


# --------------------------------------------------------------------------
# running pytest


def run_pytest(copy: Path, cfg: dict, target: str, junit: Path) -> tuple[str, int, str]:
    """Run pytest on *target* inside *copy*; return (outcome, n_tests, output)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k not in ("PYTHONPATH", "PYTHONSTARTUP")
    }
    entries = [str(copy)] + [str(copy / p) for p in cfg["pythonpath"] if p not in (".", "")]
    env.update(
        PYTHONPATH=os.pathsep.join(entries),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        COLUMNS="200",
    )
    cmd = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
        "-q", "-rA", f"--junitxml={junit}", target,
    ]
    try:
        proc = subprocess.run(
            cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=PYTEST_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return "timeout", 0, ""
    output = proc.stdout + proc.stderr
    if not junit.is_file():
        return f"no-junit(rc={proc.returncode})", 0, output
    root = ET.parse(junit).getroot()
    cases = list(root.iter("testcase"))
    junit.unlink()
    if not cases or any(c.find("error") is not None for c in cases):
        outcome = "error"
    elif any(c.find("failure") is not None for c in cases):
        outcome = "failed"
    else:
        outcome = "passed"
    # Cross-check with pytest's exit code (0 ok, 1 failures, 2 interrupted, 5 none).
    rc_outcome = {0: "passed", 1: "failed"}.get(proc.returncode, "error")
    if rc_outcome != outcome and not (outcome == "error" and proc.returncode == 1):
        outcome = f"{outcome}/rc={proc.returncode}"
    return outcome, len(cases), output


def run_module(copy: Path, cfg: dict, source: Path, dest_name: str, junit: Path):
    dest = copy / cfg["test_dir"] / dest_name
    shutil.copyfile(source, dest)
    try:
        return run_pytest(copy, cfg, str(Path(cfg["test_dir"]) / dest_name), junit)
    finally:
        dest.unlink()


def verify_instance(inst: Path, use_git: bool, verbose: bool) -> Report:
    rep = Report(inst.name)
    try:
        cfg = tomllib.loads((inst / "instance.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        rep.problem(f"cannot read instance.toml: {exc}")
        return rep
    check_static(inst, cfg, rep)
    if rep.problems:
        return rep
    expected = load_expected(inst, cfg, rep)

    with tempfile.TemporaryDirectory(prefix=f"verify-{inst.name}-") as tmp:
        tmp_path = Path(tmp)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
        copies = {}
        for state in ("old", "new"):
            copies[state] = tmp_path / state
            shutil.copytree(inst / cfg["repo"], copies[state], ignore=ignore)
        patch = inst / cfg["golden_patch"]
        apply = git_apply if use_git and shutil.which("git") else builtin_apply
        if not apply(copies["new"], patch, rep):
            return rep
        if all(
            (copies["old"] / f.relative_to(copies["new"])).is_file()
            and (copies["old"] / f.relative_to(copies["new"])).read_bytes() == f.read_bytes()
            for f in copies["new"].rglob("*")
            if f.is_file()
        ):
            rep.problem("golden.patch changed nothing")
        junit = tmp_path / "junit.xml"

        def log(label: str, output: str) -> None:
            if verbose:
                rep.logs.append(f"--- {label}\n{output}")

        for state in ("old", "new"):
            outcome, n, out = run_pytest(copies[state], cfg, cfg["test_dir"], junit)
            rep.row(f"own suite ({n} tests) on {state}", "passed", outcome, outcome == "passed")
            if n < 6:
                rep.problem(f"own suite has {n} tests on {state}, want 6+")
            log(f"own suite on {state}", out)

        golden = inst / cfg["golden_test"]
        got = []
        for state in ("old", "new"):
            outcome, _, out = run_module(copies[state], cfg, golden, golden.name, junit)
            got.append(outcome)
            log(f"{golden.name} on {state}", out)
        rep.row(golden.name, "failed/passed", "/".join(got), got == ["failed", "passed"])

        for name, entry in expected.items():
            source = inst / cfg["initial_tests"] / name
            got = []
            for state in ("old", "new"):
                outcome, _, out = run_module(copies[state], cfg, source, name, junit)
                got.append(outcome)
                log(f"{name} on {state}", out)
            want = [entry["old"], entry["new"]]
            f2p = got[0] != "passed" and got[1] == "passed"
            label = f"{name}{' [F2P]' if entry['f2p'] else ''}"
            rep.row(label, "/".join(want), "/".join(got), got == want and f2p == entry["f2p"])
    return rep


def print_report(rep):
    """One instance's table (each module: expected and actual outcomes), logs and problems."""
    print(f"\n== {rep.name} " + "=" * max(0, 66 - len(rep.name)))
    width = max([len(r[0]) for r in rep.rows] + [10])
    print(f"{'module':<{width}}  {'expected':<15} {'actual':<15} status")
    for label, want, got, status in rep.rows:
        print(f"{label:<{width}}  {want:<15} {got:<15} {status}")
    for line in rep.logs:
        print(line)
    for msg in rep.problems:
        print(f"PROBLEM: {msg}")
    print("OK" if not rep.problems else f"FAILED ({len(rep.problems)} problems)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("instances", nargs="*", help="instance directory names (default: all)")
    parser.add_argument("--no-git", action="store_true", help="use the built-in patch applier")
    parser.add_argument("-v", "--verbose", action="store_true", help="print pytest output")
    args = parser.parse_args()

    if args.instances:
        dirs = [EXAMPLES / name for name in args.instances]
    else:
        dirs = sorted(p.parent for p in EXAMPLES.glob("*/instance.toml"))
    if not dirs:
        print("no instances found", file=sys.stderr)
        return 1
    with ThreadPoolExecutor(max_workers=min(len(dirs), os.cpu_count() or 1)) as pool:
        reports = list(pool.map(lambda d: verify_instance(d, not args.no_git, args.verbose), dirs))

    failed = 0
    for rep in reports:
        print_report(rep)
        failed += bool(rep.problems)
    print(f"\n{len(reports) - failed}/{len(reports)} instances verified")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
