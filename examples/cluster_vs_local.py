#!/usr/bin/env python3
"""The bundled examples x 3 seeds (15 instances) run locally and on a Slurm cluster: the same
verdicts and final tests, wall times side by side, and the scheduler's overhead per instance.

The model's replies are the examples' recorded scripts (SCRIPTED: no model is called); every
execution is a real pytest run. Each seed is one batch (`--seed S`); the three batches of a
side run at once, six instances at a time in all (locally `--parallel 2` each; on the cluster
Slurm places the tasks, one CPU each, over the nodes). `.ci/slurm` starts a three-node cluster
on this host.

    python3 examples/cluster_vs_local.py [--bin target/release/evootter] [--out /tmp/evootter-cluster]

It prints a table and writes OUT/cluster_vs_local.json.
"""
import argparse
import json
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import reproduce_paper  # noqa: E402  (the rows of the examples, their mirrors)

SEEDS = [1, 2, 3]


def run_side(a, rows_file, repos, side: str, extra: list[str]) -> float:
    """The three seeds' batches at once; the wall time until the last one's summary."""
    t0 = time.monotonic()
    procs = []
    for seed in SEEDS:
        out = pathlib.Path(a.out) / side / f"seed{seed}"
        cmd = [a.bin, "bench", "--instances", str(rows_file), "--repos", str(repos), "--out", str(out),
               "--seed", str(seed), *extra]
        procs.append((seed, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for seed, p in procs:
        stdout, stderr = p.communicate()
        if p.returncode != 0:
            sys.exit(f"{side} seed {seed}: bench failed\n{stdout}\n{stderr}")
    return time.monotonic() - t0


def verdicts(a, side: str) -> dict:
    out = {}
    for seed in SEEDS:
        d = pathlib.Path(a.out) / side / f"seed{seed}"
        for r in sorted(d.glob("*/report.json")):
            rep = json.loads(r.read_text())
            out[f"seed{seed}/{r.parent.name}"] = (rep["f2p"]["f2p"], rep.get("final_test_id"))
    return out


def overhead(a) -> dict:
    """What the scheduler adds (Slurm's times are whole seconds): the queue wait of each task
    from submission to start; for a task that waited on a slot, the seconds from the end of
    the task that freed it to its start; from a batch's last task's end to its summary; and
    how long the tasks ran on the cluster and locally (their reports' wall time)."""
    waits, gaps, tails = [], [], []
    tasks = []
    for seed in SEEDS:
        d = pathlib.Path(a.out) / "cluster" / f"seed{seed}"
        seen = list(json.loads((d / "slurm" / "tasks.json").read_text()).values())
        tasks += seen
        tails.append(round((d / "summary.json").stat().st_mtime - max(t["end_unix"] for t in seen), 2))
    ends = sorted(t["end_unix"] for t in tasks)
    for t in tasks:
        wait = t["start_unix"] - t["submit_unix"]
        waits.append(wait)
        before = [e for e in ends if e <= t["start_unix"]]
        if wait > 1 and before:
            gaps.append(t["start_unix"] - before[-1])

    def runs(side: str) -> list:
        return sorted(round(json.loads(r.read_text())["wall_seconds"])
                      for seed in SEEDS for r in (pathlib.Path(a.out) / side / f"seed{seed}").glob("*/report.json"))

    stat = lambda v: {"median": statistics.median(v), "max": max(v), "n": len(v)}  # noqa: E731
    return {
        "queue_wait_s": stat(waits),
        "freed_slot_to_next_start_s": stat(gaps) if gaps else None,
        "last_end_to_summary_s": stat(tails),
        "run_wall_s": {"cluster": stat(runs("cluster")), "local": stat(runs("local"))},
    }


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(here.parent / "target" / "release" / "evootter"))
    ap.add_argument("--out", default="/tmp/evootter-cluster")
    ap.add_argument("--measure-only", action="store_true",
                    help="read the batches already in --out again (their walls from its JSON)")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    if a.measure_only:
        walls = json.loads((out / "cluster_vs_local.json").read_text())["wall_s"]
        print(json.dumps(measure(a, walls["local"], walls["cluster"]), indent=2))
        return 0
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    examples = sorted(p.parent for p in here.glob("*/instance.toml") if p.parent.name != "fresh"
                      and (p.parent / "llm_script.json").exists())
    rows_file, repos = reproduce_paper.rows(examples, out)
    local = run_side(a, rows_file, repos, "local", ["--parallel", "2"])
    cluster = run_side(a, rows_file, repos, "cluster", ["--cluster", "slurm"])
    result = measure(a, local, cluster)
    print(json.dumps(result, indent=2))
    return 0 if result["same_verdicts_and_final_tests"] == result["instances"] else 1


def measure(a, local: float, cluster: float) -> dict:
    vl, vc = verdicts(a, "local"), verdicts(a, "cluster")
    same = [k for k in vl if vl[k] == vc.get(k)]
    result = {
        "instances": len(vl),
        "same_verdicts_and_final_tests": len(same),
        "f2p_local": sum(1 for v in vl.values() if v[0]),
        "f2p_cluster": sum(1 for v in vc.values() if v[0]),
        "wall_s": {"local": round(local, 1), "cluster": round(cluster, 1),
                   "ratio_cluster_to_local": round(cluster / local, 2)},
        "overhead": overhead(a),
    }
    result["differs"] = {k: [vl[k], vc.get(k)] for k in vl if vl[k] != vc.get(k)}
    (pathlib.Path(a.out) / "cluster_vs_local.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    sys.exit(main())
