#!/usr/bin/env python3
"""Reach-aware mutant sampling against sampling from the whole pool, on the bundled examples.

For each example and seed, runs the full workflow (`evootter run --instance`, the scripted
model) twice with the same seed: `--mutant-reach reached` and `--mutant-reach all`. The
second reuses the first's executions (`--reuse-executions`), so a pytest run both need
happens once; the figures count the executions each run's generations needed, not what
happened to be reused. Per run it prints:

  executions   mutant executions the generations needed (tests x sampled mutants)
  kills        (test, mutant) pairs killed in them
  kills/exec   kills per mutant execution
  fitness      cuts that fitness decided alone, of all cuts
  model ties   tied cuts that went to the model (the scripted one here)
  unreached    of the executions, those on a mutant no test of the generation executes on
               c_old (they cannot kill; zero by construction with `reached`)
  F2P          whether the final test is fail-to-pass against the golden patch

then totals per mode.

usage: python3 examples/compare_reach.py [--bin target/release/evootter] [--seeds 1,2,3]
                                         [--out DIR] [--operators all|table-i] [EXAMPLE ...]
"""
import argparse
import json
import pathlib
import subprocess
import sys

MODES = ["reached", "all"]


def figures(out: pathlib.Path) -> dict:
    r = json.loads((out / "report.json").read_text())
    s = json.loads((out / "session.json").read_text())
    gens = s["generations"]
    baselines = 2 if s["config"].get("check_flaky", True) else 1
    execs = sum(len(g["tests"]) * len(g["mutants"]) for g in gens)
    kills = set()
    for g in gens:
        for t, sc in g["scores"].items():
            if not sc.get("flaky"):
                kills.update((t, m) for m in sc["kills"])
    decided = sum(1 for g in gens if g.get("fitness_decided"))
    # Executions on a mutant that no test of the generation executes on c_old, from the
    # traced c_old runs (the `all` run reuses the `reached` run's, traced ones).
    pool = {m["id"]: m for m in s["pool"]["mutants"]}
    old = {e["test_hash"]: e for e in s["executions"].values() if e["target"] == "old"}
    by_function = {}
    for m in pool.values():
        by_function.setdefault((m["file"], m["function"]), []).append(m["line"])

    def span(m):
        if m["kind"] == "force_failure":
            lines = by_function[(m["file"], m["function"])]
            return min(lines), max(lines)
        return m["line"], m["line"] + m["original"].count("\n")

    wasted, known = 0, True
    for g in gens:
        reach = [old.get(s["tests"][t]["hash"], {}).get("lines") for t in g["tests"]]
        if any(r is None for r in reach):
            known = False
            continue
        for mid in g["mutants"]:
            m = pool[mid]
            lo, hi = span(m)
            if not any(any(lo <= n <= hi for n in r.get(m["file"], [])) for r in reach):
                wasted += len(g["tests"])
    model = sum(1 for g in gens if (g.get("tie_break") or {}).get("by") == "llm")
    return {
        "executions": execs,
        "baselines": sum(len(g["tests"]) for g in gens) * baselines,
        "kills": len(kills),
        "cuts": len(gens),
        "fitness": decided,
        "model": model,
        "f2p": bool(r.get("f2p", {}).get("f2p")),
        "final": pathlib.Path(r["final_test"] or "-").name,
        "unreached": wasted if known else None,
    }


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(here.parent / "target" / "release" / "evootter"))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--out", default="/tmp/evootter-reach")
    ap.add_argument("--operators", default="all")
    ap.add_argument("examples", nargs="*")
    a = ap.parse_args()
    names = a.examples or sorted(p.parent.name for p in here.glob("*/instance.toml"))
    seeds = [int(s) for s in a.seeds.split(",")]
    totals = {m: {"executions": 0, "kills": 0, "cuts": 0, "fitness": 0, "model": 0, "f2p": 0, "runs": 0, "unreached": 0}
              for m in MODES}
    print(f"{'instance':22} {'seed':>4} {'mode':8} {'executions':>10} {'kills':>6} {'kills/exec':>10} "
          f"{'fitness':>8} {'model ties':>10} {'unreached':>9} {'F2P':>4}  final test")
    for name in names:
        for seed in seeds:
            prev = None
            for mode in MODES:
                out = pathlib.Path(a.out) / name / f"s{seed}" / mode
                cmd = [a.bin, "run", "--instance", str(here / name), "--seed", str(seed),
                       "--operators", a.operators, "--mutant-reach", mode, "--out", str(out), "--force"]
                if prev:
                    cmd += ["--reuse-executions", str(prev)]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if p.returncode != 0:
                    print(p.stderr, file=sys.stderr)
                    return 1
                f = figures(out)
                t = totals[mode]
                for k in ("executions", "kills", "cuts", "fitness", "model"):
                    t[k] += f[k]
                t["unreached"] += f["unreached"] or 0
                t["f2p"] += f["f2p"]
                t["runs"] += 1
                rate = f["kills"] / f["executions"] if f["executions"] else 0.0
                print(f"{name:22} {seed:>4} {mode:8} {f['executions']:>10} {f['kills']:>6} {rate:>10.2f} "
                      f"{str(f['fitness']) + '/' + str(f['cuts']):>8} {f['model']:>10} "
                      f"{'?' if f['unreached'] is None else f['unreached']:>9} "
                      f"{'yes' if f['f2p'] else 'no':>4}  {f['final']}")
                prev = out / "session.json"
    print()
    for mode, t in totals.items():
        rate = t["kills"] / t["executions"] if t["executions"] else 0.0
        print(f"{mode:8} mutant executions {t['executions']}, kills {t['kills']} ({rate:.2f} per execution), "
              f"fitness decided {t['fitness']}/{t['cuts']} cuts ({100 * t['fitness'] / max(t['cuts'], 1):.0f}%), "
              f"ties to the model {t['model']}, on unreached mutants {t['unreached']}, "
              f"F2P {t['f2p']}/{t['runs']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
