#!/usr/bin/env python3
"""Compare selection strategies: selection only (`--start candidates`, no crossover, no model).

Runs `evootter run --instance` for each instance, seed and configuration. Every run of an
instance reuses the executions of the one before it (`--reuse-executions`), so each pytest
execution runs once per instance whatever the number of seeds and configurations. Prints,
per run, the final test with its measured label (candidates/expected.toml), whether it is
F2P against the golden patch, how many cuts fitness decided alone, and the share of the run's
wall time its witness runs took; then, per configuration, the F2P runs, the cuts fitness
decided, and the instances where it does worse than the Otter rules or random. `--json FILE`
keeps every row.

    python3 examples/compare_strategies.py [--bin target/release/evootter] [--seeds 1,2,3]
        [--fresh | --bundled | INSTANCE_DIR ...] [--configs NAME,NAME] [--flags "..."] [--json F]
        [--no-reuse]

`--fresh` takes examples/fresh/* (run examples/fresh/materialize.py first), `--bundled` the
bundled examples (the default); `--flags` adds flags to every run; `--configs` picks
configurations by name (`--list` names them).
"""
import argparse
import json
import pathlib
import shlex
import subprocess
import sys
import time
import tomllib

CONFIGS = {
    "mutation": [],
    "mutation-before": ["--fitness", "brt-kills"],
    "mutation-whole-log": ["--kills", "whole-log"],
    "mutation-no-witnesses": ["--no-witnesses"],
    "mutation-no-focus": ["--no-issue-focus"],
    "mutation-no-rescues": ["--no-rescue-tiebreak"],
    "mutation-paper": ["--fitness", "paper"],
    "otter": ["--selection", "otter"],
    "random": ["--selection", "random"],
}
DEFAULT = ["mutation", "mutation-no-witnesses", "mutation-paper", "otter", "random"]


def instances(a, here: pathlib.Path) -> list[pathlib.Path]:
    if a.instances:
        return [pathlib.Path(p).resolve() for p in a.instances]
    root = here / "fresh" if a.fresh else here
    return sorted(p.parent for p in root.glob("*/instance.toml"))


def labels(inst: pathlib.Path) -> dict:
    try:
        return tomllib.loads((inst / "candidates" / "expected.toml").read_text())
    except OSError:
        return {}


def markdown(rows, configs, names, seeds) -> str:
    """F2P runs per instance and configuration, with each seed's final test's kind, and the
    totals: the tables examples/README.md shows."""
    head = "| instance | " + " | ".join(configs) + " |\n|---|" + "---|" * len(configs) + "\n"
    out = [head]
    for n in names:
        cells = []
        for c in configs:
            mine = sorted((r for r in rows if r["instance"] == n and r["config"] == c), key=lambda r: r["seed"])
            ok = sum(r["f2p"] for r in mine)
            kinds = ", ".join("F2P" if r["f2p"] else r["kind"] for r in mine)
            cells.append(f"{ok}/{len(mine)} ({kinds})")
        out.append(f"| {n} | " + " | ".join(cells) + " |\n")
    totals = []
    for c in configs:
        mine = [r for r in rows if r["config"] == c]
        ok, cuts = sum(r["f2p"] for r in mine), sum(r["cuts"] for r in mine)
        dec = sum(r["fitness_decided"] for r in mine)
        totals.append(f"**{ok}/{len(mine)}** ({ok / max(1, len(mine)):.0%}); fitness {dec}/{cuts}")
    out.append("| **all** | " + " | ".join(totals) + " |\n")
    return "".join(out)


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(here.parent / "target" / "release" / "evootter"))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--fresh", action="store_true", help="the fresh-bug benchmark (examples/fresh)")
    ap.add_argument("--bundled", action="store_true", help="the bundled examples (the default)")
    ap.add_argument("--configs", default=",".join(DEFAULT))
    ap.add_argument("--flags", default="", help="flags added to every run")
    ap.add_argument("--out", default="/tmp/evootter-compare")
    ap.add_argument("--json", help="write every row here")
    ap.add_argument("--markdown", help="write the per-instance table (F2P runs per configuration) here")
    ap.add_argument("--list", action="store_true", help="name the configurations")
    ap.add_argument("--no-reuse", action="store_true",
                    help="run every configuration from scratch (to compare walls: the witnesses' cost)")
    ap.add_argument("instances", nargs="*")
    a = ap.parse_args()
    if a.list:
        for name, flags in CONFIGS.items():
            print(f"{name:24} {' '.join(flags)}")
        return 0
    configs = [c for c in a.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        print(f"unknown configuration {unknown}; --list names them", file=sys.stderr)
        return 2
    seeds = [int(s) for s in a.seeds.split(",")]
    extra = shlex.split(a.flags)
    rows = []
    print(f"{'instance':38} {'seed':>4} {'config':22} {'final test':44} {'kind':17} {'F2P':>4} "
          f"{'fitness':>7} {'wall':>6} {'witness':>7}")
    for inst in instances(a, here):
        kinds = labels(inst)
        prev = None
        for seed in seeds:
            for cname in configs:
                out = pathlib.Path(a.out) / inst.name / f"s{seed}" / cname
                cmd = [a.bin, "run", "--instance", str(inst), "--start", "candidates", "--seed", str(seed),
                       "--out", str(out), "--force", *CONFIGS[cname], *extra]
                if prev and not a.no_reuse:
                    cmd += ["--reuse-executions", str(prev)]
                started = time.monotonic()
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    print(p.stderr, file=sys.stderr)
                    return 1
                r = json.loads((out / "report.json").read_text())
                gens = r["generations"]
                decided = sum(1 for g in gens if g["fitness_decided"])
                f2p = bool(r.get("f2p", {}).get("f2p"))
                final = pathlib.Path(r["final_test"]).name
                kind = kinds.get(final, {}).get("kind", "?")
                wall = r.get("wall_seconds") or (time.monotonic() - started)
                witness = r.get("witness_seconds", 0.0)
                rows.append({"instance": inst.name, "seed": seed, "config": cname, "final": final,
                             "kind": kind, "f2p": f2p, "cuts": len(gens), "fitness_decided": decided,
                             "wall_seconds": wall, "witness_seconds": witness})
                print(f"{inst.name:38} {seed:>4} {cname:22} {final:44} {kind:17} {'yes' if f2p else 'no':>4} "
                      f"{decided:>3}/{len(gens):<3} {wall:>6.1f} {witness / wall if wall else 0:>7.0%}",
                      flush=True)
                prev = out / "session.json"
    print()
    names = sorted({r["instance"] for r in rows})
    for cname in configs:
        mine = [r for r in rows if r["config"] == cname]
        ok = sum(r["f2p"] for r in mine)
        cuts = sum(r["cuts"] for r in mine)
        dec = sum(r["fitness_decided"] for r in mine)
        print(f"{cname:24} F2P final test in {ok}/{len(mine)} runs ({ok / max(1, len(mine)):.0%}); "
              f"fitness decided {dec}/{cuts} cuts ({dec / max(1, cuts):.0%})")
    if "mutation" in configs:
        for other in ("otter", "random"):
            if other not in configs:
                continue
            worse = []
            for n in names:
                m = sum(r["f2p"] for r in rows if r["instance"] == n and r["config"] == "mutation")
                o = sum(r["f2p"] for r in rows if r["instance"] == n and r["config"] == other)
                if m < o:
                    worse.append(f"{n} ({m} vs {o})")
            print(f"mutation worse than {other} on: {', '.join(worse) or 'none'}")
    if a.no_reuse and {"mutation", "mutation-no-witnesses"} <= set(configs):
        worst = (0.0, 0.0, "")
        for n in names:
            for seed in seeds:
                by = {r["config"]: r for r in rows if r["instance"] == n and r["seed"] == seed}
                m, w = by["mutation"], by["mutation-no-witnesses"]
                ratio = m["wall_seconds"] / max(w["wall_seconds"], 1e-9)
                share = m["witness_seconds"] / max(m["wall_seconds"], 1e-9)
                worst = max(worst, (ratio, share, f"{n} seed {seed}"))
        print(f"witnesses: the largest wall against --no-witnesses is {worst[0]:.2f}x ({worst[2]})")
        print("witnesses' share of a run's wall, the largest per instance: " + ", ".join(
            f"{n} {max(r['witness_seconds'] / max(r['wall_seconds'], 1e-9) for r in rows if r['instance'] == n and r['config'] == 'mutation'):.0%}"
            for n in names))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(rows, indent=1))
    if a.markdown:
        pathlib.Path(a.markdown).write_text(markdown(rows, configs, names, seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
