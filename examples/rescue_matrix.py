#!/usr/bin/env python3
"""Who rescues whom: every candidate of a bundled example on every mutant of its whole pool.

A rescue is a candidate that fails on c_old and passes on a mutant: the mutant behaves like a
fix for it. For each rescuing mutant this also runs the repository's own tests (its test
directory) and the candidates that pass on c_old on it: a mutant that rescues a test while
keeping them green is a plausible surrogate fix. Plain pytest, no evootter execution: the
pool is `evootter mutants --json --count 1000` (the widened scope unless --mutant-scope focal).

    python3 examples/rescue_matrix.py --bin target/debug/evootter [EXAMPLE ...]

Prints, per example, the candidates failing on c_old and, per rescuing mutant, whom it
rescues (with each one's F2P verdict from candidates/expected.toml) and how many of the
repository's tests and of the c_old-passing candidates it breaks.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_outcomes(repo, diff, cands_dir, cands, inst, with_suite):
    """{candidate file: passed?} and the number of the repository's tests that failed, on a
    copy of `repo` with `diff` applied."""
    tmp = tempfile.mkdtemp()
    try:
        work = os.path.join(tmp, "r")
        shutil.copytree(repo, work)
        if diff:
            subprocess.run(
                ["git", "apply", "-"],
                input=diff, text=True, cwd=work, check=True,
            )
        tdir = inst.get("test_dir", "tests")
        for c in cands:
            shutil.copy(os.path.join(cands_dir, c), os.path.join(work, tdir, "test_evocand_" + c))
        # With the suite, the directory: pytest collects the copies with the repository's own
        # tests (it drops a file given twice, so they are not given again by path).
        paths = [tdir] if with_suite else [f"{tdir}/test_evocand_{c}" for c in cands]
        env = dict(
            os.environ,
            PYTHONPATH=":".join(os.path.join(work, p) for p in inst.get("pythonpath", ["."])),
            PYTHONDONTWRITEBYTECODE="1",
        )
        junit = os.path.join(tmp, "junit.xml")
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "--continue-on-collection-errors", "--junitxml", junit] + paths,
            cwd=work, env=env, capture_output=True, timeout=300,
        )
        passed, suite_failed = {}, 0
        for case in ET.parse(junit).getroot().iter("testcase"):
            # `tests.test_evocand_test_x` or, for a test class, `tests.test_evocand_test_x.TestX`.
            parts = case.get("classname", "").split(".")
            module = next((p for p in parts if p.startswith("test_evocand_")), None)
            bad = any(ch.tag in ("failure", "error") for ch in case)
            if module:
                f = module.removeprefix("test_evocand_") + ".py"
                passed[f] = passed.get(f, True) and not bad
            elif bad:
                suite_failed += 1
        # A candidate that did not even collect has no test case: it did not pass.
        return {c: passed.get(c, False) for c in cands}, suite_failed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def example(binary, name, scope):
    root = os.path.join(HERE, name)
    with open(os.path.join(root, "instance.toml"), "rb") as f:
        inst = tomllib.load(f)
    with open(os.path.join(root, "candidates", "expected.toml"), "rb") as f:
        expected = tomllib.load(f)
    repo = os.path.join(root, inst["repo"])
    cands_dir = os.path.join(root, "candidates")
    cands = sorted(c for c in os.listdir(cands_dir) if c.endswith(".py"))
    args = [binary, "mutants", "--json", "--count", "1000", "--repo", repo,
            "--mutant-scope", scope]
    for f in inst["focal"]:
        args += ["--focal", f]
    pool = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)

    old, _ = pytest_outcomes(repo, None, cands_dir, cands, inst, False)
    failing = [c for c in cands if not old[c]]
    witnesses = [c for c in cands if old[c]]
    print(f"== {name}: {len(pool)} mutants; failing on c_old: "
          + ", ".join(f"{c} ({'F2P' if expected[c]['f2p'] else 'not F2P'})" for c in failing))
    rescuers = 0
    for m in pool:
        on_m, _ = pytest_outcomes(repo, m["diff"], cands_dir, failing, inst, False)
        rescued = [c for c in failing if on_m[c]]
        if not rescued:
            continue
        rescuers += 1
        wit, suite_failed = pytest_outcomes(repo, m["diff"], cands_dir, witnesses, inst, True)
        broken = [c for c in witnesses if not wit[c]]
        verdicts = ", ".join(f"{c} ({'F2P' if expected[c]['f2p'] else 'not F2P'})"
                             for c in rescued)
        print(f"  {m['id']} {m['kind']} {m['function']}:{m['line']}"
              f"{' (' + m['scope'] + ')' if m.get('scope') else ''}: rescues {verdicts}; "
              f"breaks {suite_failed} of the repository's tests and "
              f"{len(broken)} of {len(witnesses)} c_old-passing candidates")
    print(f"  {rescuers} of {len(pool)} mutants rescue a candidate")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/debug/evootter")
    ap.add_argument("--mutant-scope", default="widened")
    ap.add_argument("examples", nargs="*")
    a = ap.parse_args()
    names = a.examples or sorted(
        d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "instance.toml"))
    )
    for name in names:
        example(os.path.abspath(a.bin), name, a.mutant_scope)


if __name__ == "__main__":
    main()
