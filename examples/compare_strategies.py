#!/usr/bin/env python3
"""Compare selection strategies on the bundled examples.

Runs `evootter run --instance` for each example, seed and configuration, reusing the
executions of the previous configuration (`--reuse-executions`), so each pytest run happens
once per example and seed. Prints, per run, the final test, whether it is F2P against the
golden patch, and how many cuts fitness decided alone, then a summary per configuration.

usage: python3 examples/compare_strategies.py [--bin target/release/evootter] [--seeds 1,2,3]
                                              [--operators all|table-i] [--sampling discriminate|reached|all]
                                              [--mutant-scope widened|focal]
                                              [--out DIR] [EXAMPLE ...]
"""
import argparse
import json
import pathlib
import subprocess
import sys

CONFIGS = [
    ("mutation", []),
    ("mutation-no-witnesses", ["--no-witnesses"]),
    ("mutation-no-rescues", ["--no-rescue-tiebreak"]),
    ("mutation-paper", ["--fitness", "paper"]),
    ("otter", ["--selection", "otter"]),
    ("random", ["--selection", "random"]),
]


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(here.parent / "target" / "release" / "evootter"))
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--operators", default="all", help="the mutant pool: all | table-i")
    ap.add_argument("--sampling", "--mutant-reach", dest="sampling", default="discriminate",
                    help="sampling: discriminate | reached | all")
    ap.add_argument("--mutant-scope", default="widened", help="widened | focal")
    ap.add_argument("--out", default="/tmp/evootter-compare")
    ap.add_argument("examples", nargs="*")
    a = ap.parse_args()
    names = a.examples or sorted(p.parent.name for p in here.glob("*/instance.toml"))
    seeds = [int(s) for s in a.seeds.split(",")]
    totals = {c: [0, 0] for c, _ in CONFIGS}
    print(f"{'instance':22} {'seed':>4} {'config':20} {'final test':42} {'F2P':>4} {'fitness cuts':>12} {'new runs':>8}")
    for name in names:
        for seed in seeds:
            prev = None
            for cname, flags in CONFIGS:
                out = pathlib.Path(a.out) / name / f"s{seed}" / cname
                cmd = [a.bin, "run", "--instance", str(here / name), "--start", "candidates", "--seed", str(seed),
                       "--out", str(out), "--force", "--operators", a.operators,
                       "--sampling", a.sampling, "--mutant-scope", a.mutant_scope, *flags]
                if prev:
                    cmd += ["--reuse-executions", str(prev)]
                p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                _, err = p.communicate()
                if p.returncode != 0:
                    print(err, file=sys.stderr)
                    return 1
                r = json.loads((out / "report.json").read_text())
                s = json.loads((out / "session.json").read_text())
                new_runs = sum(1 for e in s["executions"].values() if e["pid"] == p.pid)
                gens = r["generations"]
                decided = sum(1 for g in gens if g["fitness_decided"])
                f2p = r.get("f2p", {}).get("f2p")
                totals[cname][0] += bool(f2p)
                totals[cname][1] += 1
                final = pathlib.Path(r["final_test"]).name
                print(f"{name:22} {seed:>4} {cname:20} {final:42} {'yes' if f2p else 'no':>4} "
                      f"{str(decided) + '/' + str(len(gens)):>12} {new_runs:>8}")
                prev = out / "session.json"
    print()
    for cname, (ok, n) in totals.items():
        print(f"{cname:20} F2P final test in {ok}/{n} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
