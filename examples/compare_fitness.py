#!/usr/bin/env python3
"""How often fitness decides, by sampling and pool, on the bundled examples.

For each example and seed, runs `evootter run --instance` once per configuration (the full
workflow with the scripted model, or `--start candidates` for selection only), each reusing
the executions of the one before it (`--reuse-executions`), so a pytest run several
configurations need happens once; the figures count what each run's generations needed.

Configurations (each a part of issue 26 switched off, against the default):
  discriminate   the default: discriminating samples, ties settled by more mutants,
                 trivially equivalent mutants dropped, rescues judged by the repository's
                 tests (witnesses)
  no-witnesses   --no-witnesses (rescues only break ties, rescuers not drawn again)
  no-settle      --no-settle-ties (a tied cut goes to the tie-break at once)
  reached        --sampling reached --no-settle-ties (reach-aware only, the earlier default)
  all            --sampling all --no-settle-ties (the whole pool, as the paper samples)
  keep-equiv     --keep-equivalent-mutants
  focal-scope    --mutant-scope focal (no callee or caller mutants when the focal functions
                 yield fewer than m; the same runs as the default where they yield enough)

Per run: cuts fitness decided alone of all cuts, tied cuts (the rest: rescues, the model or
the rules decided), rescues found ((test, mutant) pairs where a test failing on c_old passes
on the mutant), mutant executions the generations needed, runs of the repository's own test
modules that judged the rescuers (witness runs), and whether the final test is F2P.

usage: python3 examples/compare_fitness.py [--bin target/release/evootter] [--seeds 1,2,3]
                                           [--start basebrt|candidates] [--configs a,b]
                                           [--out DIR] [EXAMPLE ...]
"""
import argparse
import json
import pathlib
import subprocess
import sys

CONFIGS = {
    "discriminate": [],
    "no-witnesses": ["--no-witnesses"],
    "no-settle": ["--no-settle-ties"],
    "reached": ["--sampling", "reached", "--no-settle-ties"],
    "all": ["--sampling", "all", "--no-settle-ties"],
    "keep-equiv": ["--keep-equivalent-mutants"],
    "focal-scope": ["--mutant-scope", "focal"],
}


def figures(out: pathlib.Path) -> dict:
    r = json.loads((out / "report.json").read_text())
    s = json.loads((out / "session.json").read_text())
    gens = s["generations"]
    rescues = set()
    for g in gens:
        for t, sc in g["scores"].items():
            if not sc.get("flaky"):
                rescues.update((t, m) for m in sc.get("rescues", []))
    tce = (s["pool"] or {}).get("tce") or {}
    witnesses = {w["hash"][:16] for w in (s.get("witnesses") or {}).get("modules", [])}
    return {
        "witness_runs": sum(1 for k in s["executions"] if k.split("@")[0] in witnesses),
        "cuts": len(gens),
        "fitness": sum(1 for g in gens if g.get("fitness_decided")),
        "rescues": len(rescues),
        "executions": sum(len(g["tests"]) * len(g["mutants"]) for g in gens),
        "f2p": bool((r.get("f2p") or {}).get("f2p")),
        "pool": len(s["pool"]["mutants"]),
        "widened": sum(1 for m in s["pool"]["mutants"] if m.get("scope")),
        "dropped": len(tce.get("dropped", [])),
        "final": pathlib.Path(r["final_test"] or "-").name,
    }


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(here.parent / "target" / "release" / "evootter"))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--start", default="basebrt")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--out", default="/tmp/evootter-fitness")
    ap.add_argument("examples", nargs="*")
    a = ap.parse_args()
    names = a.examples or sorted(p.parent.name for p in here.glob("*/instance.toml"))
    seeds = [int(s) for s in a.seeds.split(",")]
    configs = a.configs.split(",")
    keys = ("cuts", "fitness", "rescues", "executions", "witness_runs", "f2p", "dropped")
    totals = {c: dict.fromkeys(keys + ("runs",), 0) for c in configs}
    print(f"{'instance':22} {'seed':>4} {'config':13} {'fitness':>8} {'tied':>5} {'rescues':>7} "
          f"{'executions':>10} {'witness':>7} {'pool':>7} {'dropped':>7} {'F2P':>4}  final test")
    for name in names:
        for seed in seeds:
            prev = None
            for c in configs:
                out = pathlib.Path(a.out) / a.start / name / f"s{seed}" / c
                cmd = [a.bin, "run", "--instance", str(here / name), "--start", a.start,
                       "--seed", str(seed), "--out", str(out), "--force", *CONFIGS[c]]
                if prev:
                    cmd += ["--reuse-executions", str(prev)]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if p.returncode != 0:
                    print(p.stderr, file=sys.stderr)
                    return 1
                f = figures(out)
                # A widened pool as focal + callees and callers.
                pool = f"{f['pool'] - f['widened']}+{f['widened']}" if f["widened"] else str(f["pool"])
                for k in keys:
                    totals[c][k] += f[k]
                totals[c]["runs"] += 1
                print(f"{name:22} {seed:>4} {c:13} {str(f['fitness']) + '/' + str(f['cuts']):>8} "
                      f"{f['cuts'] - f['fitness']:>5} {f['rescues']:>7} {f['executions']:>10} {f['witness_runs']:>7} "
                      f"{pool:>7} {f['dropped']:>7} {'yes' if f['f2p'] else 'no':>4}  {f['final']}",
                      flush=True)
                prev = out / "session.json"
    print()
    for c, t in totals.items():
        print(f"{c:13} fitness decided {t['fitness']}/{t['cuts']} cuts "
              f"({100 * t['fitness'] / max(t['cuts'], 1):.0f}%), tied {t['cuts'] - t['fitness']}, "
              f"rescues {t['rescues']}, mutant executions {t['executions']}, "
              f"witness runs {t['witness_runs']}, "
              f"trivially equivalent dropped {t['dropped']}, F2P {t['f2p']}/{t['runs']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
