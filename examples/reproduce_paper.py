#!/usr/bin/env python3
"""Reproduce the paper's Tables II and III (and its figures) as `evootter bench` batches over
the bundled examples, and write examples/PAPER-TABLES.md from them.

The model's replies are the examples' recorded scripts (SCRIPTED: no model is called, each
reply was written for these examples; the critic's and repairs of e-Otter included); every
execution is a real pytest run. Each row of Table II and III is one batch directory under
--out, each number of PAPER-TABLES.md is read from the CSVs `bench --compare ... --figures`
writes there, which are read from the batches' report.json files.

    python3 examples/reproduce_paper.py [--bin target/release/evootter] [--out /tmp/evootter-paper]
        [--parallel 2] [--markdown examples/PAPER-TABLES.md]

Table II (selectors and repairers): basebrt, rule-select, llm-select, e-Otter, EvoOtter as
published (--preset paper) and with evootter's defaults. Table III: mutation, LLM and random
selection, each with and without crossover. Table V: heterogeneous prompting as published
against single prompting.
"""
import argparse
import csv
import json
import pathlib
import shutil
import subprocess
import sys

TABLE_II = {
    "basebrt": ["--method", "basebrt"],
    "rule-select": ["--method", "rule-select"],
    "llm-select": ["--method", "llm-select"],
    "eotter": ["--method", "eotter"],
    "evootter-paper": ["--preset", "paper"],
    "evootter": [],
}
TABLE_III = {
    "mutation": [],
    "mutation-no-crossover": ["--crossover", "none"],
    "llm": ["--selection", "llm"],
    "llm-no-crossover": ["--selection", "llm", "--crossover", "none"],
    "random": ["--selection", "random"],
    "random-no-crossover": ["--selection", "random", "--crossover", "none"],
}
# Table V: heterogeneous prompting as published against single prompting (Table II's
# `evootter`, the same batch).
TABLE_V = {
    "heterogeneous": ["--prompting", "heterogeneous"],
}
CUTOFF = "2025-09-29"  # Claude Sonnet 4.5's release, the paper's Table VIII split


def git(cwd: pathlib.Path, *args: str) -> str:
    env = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    p = subprocess.run(["git", "-c", "user.name=evootter", "-c", "user.email=dev@evootter.local", *args],
                       cwd=cwd, capture_output=True, text=True, env=env, check=True)
    return p.stdout.strip()


def rows(examples: list[pathlib.Path], out: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """SWE-bench-style rows of the examples, their repositories as bare mirrors."""
    repos = out / "repos"
    lines = []
    for ex in examples:
        name = ex.name
        work = repos / f"work-{name}"
        shutil.copytree(ex / "repo", work)
        git(work, "init", "-q")
        git(work, "add", "-A")
        git(work, "commit", "-qm", "c_old")
        head = git(work, "rev-parse", "HEAD")
        bare = repos / "evootter" / f"{name}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        git(repos, "clone", "-q", "--bare", str(work), str(bare))
        shutil.rmtree(work)
        golden_test = (ex / "golden_test.py").read_text()
        test_path = "tests/test_developer.py"
        f2p = [f"{test_path}::{l[4:].split('(')[0]}" for l in golden_test.splitlines()
               if l.startswith("def test_")]
        added = golden_test.splitlines()
        test_patch = (f"diff --git a/{test_path} b/{test_path}\nnew file mode 100644\n--- /dev/null\n"
                      f"+++ b/{test_path}\n@@ -0,0 +1,{len(added)} @@\n"
                      + "".join(f"+{l}\n" for l in added))
        lines.append(json.dumps({
            "instance_id": f"evootter__{name}-1",
            "repo": f"evootter/{name}",
            "base_commit": head,
            "problem_statement": (ex / "issue.md").read_text(),
            "patch": (ex / "golden.patch").read_text(),
            "test_patch": test_patch,
            "FAIL_TO_PASS": json.dumps(f2p),
            "llm_script": str(ex / "llm_script.json"),
        }))
    path = out / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, repos


def bench(a, rows_file, repos, name, flags) -> pathlib.Path:
    out = pathlib.Path(a.out) / name
    cmd = [a.bin, "bench", "--instances", str(rows_file), "--repos", str(repos), "--out", str(out),
           "--parallel", str(a.parallel), *flags]
    print("$", " ".join(cmd[1:]), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{name}: bench failed\n{p.stdout}\n{p.stderr}")
    return out


def compare(a, names: list[str], figures: str) -> str:
    dirs = [str(pathlib.Path(a.out) / n) for n in names]
    cmd = [a.bin, "bench", "--compare", *dirs, "--figures", str(pathlib.Path(a.out) / figures),
           "--cutoff", CUTOFF]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare failed\n{p.stdout}\n{p.stderr}")
    return p.stdout


def table(path: pathlib.Path) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(f))


def pct(x: str) -> str:
    return f"{float(x) * 100:.1f}%" if x else "-"


def markdown(a, examples) -> str:
    out = pathlib.Path(a.out)
    t2, t3 = out / "figures-table2", out / "figures-table3"
    # Cited relative to the output directory, which is wherever the script was told.
    rel = lambda p: f"OUT/{pathlib.Path(p).relative_to(out)}"
    md = [
        "# The paper's tables from evootter's batches\n\n",
        "Written by `python3 examples/reproduce_paper.py` (do not edit): each row is a `bench` batch "
        f"over the {len(examples)} bundled examples ({', '.join(e.name for e in examples)}), in "
        "`OUT/NAME` (OUT is the script's `--out`); each number is in the CSV named under its table, which "
        "`bench --compare ... --figures` read from the batches' `report.json` files. The model's "
        "replies are the examples' **recorded scripts** (no model was called; the critic's verdicts "
        "and repairs of e-Otter, the selections and the crossovers were written for these examples); "
        "every execution is a real pytest run. Five instances measure nothing about the methods: "
        "this shows every table and figure of the paper coming out of evootter's commands.\n\n",
        "## Table II: selectors and repairers\n\n",
        f"From `{rel(t2 / 'table2_methods.csv')}`. Calls after generation are the paper's count (selection, "
        "crossover, repair: \"EvoOtter requires at most 5 LLM calls\"; e-Otter \"up to 10 LLM calls to "
        "repair each test\").\n\n",
        "| batch | method | instances | F2P | calls per instance | after generation (mean, max) |\n",
        "|---|---|---|---|---|---|\n",
    ]
    for r in table(t2 / "table2_methods.csv"):
        md.append(f"| `{r['batch']}` | {r['method']} | {r['instances']} | {r['f2p']} ({pct(r['f2p_share'])}) | "
                  f"{float(r['model_calls_per_instance']):.1f} | "
                  f"{float(r['calls_after_generation_per_instance']):.1f}, {r['most_calls_after_generation']} |\n")
    md += [f"\nMcNemar's exact test between every pair (`{rel(t2 / 'mcnemar.csv')}`), on the instances both ran:\n\n",
           "| A | B | F2P in both | A only | B only | neither | p |\n|---|---|---|---|---|---|---|\n"]
    for r in table(t2 / "mcnemar.csv"):
        md.append(f"| `{r['a']}` | `{r['b']}` | {r['f2p_both']} | {r['f2p_a_only']} | {r['f2p_b_only']} | "
                  f"{r['f2p_neither']} | {float(r['p_value']):.3f} |\n")
    md += ["\n## Table III: selection strategies with and without crossover\n\n",
           f"From `{rel(t3 / 'table2_methods.csv')}`.\n\n",
           "| selection | with crossover | without crossover |\n|---|---|---|\n"]
    by = {r["batch"]: r for r in table(t3 / "table2_methods.csv")}
    for s in ("mutation", "llm", "random"):
        w, wo = by[s], by[f"{s}-no-crossover"]
        md.append(f"| {s} | {w['f2p']} ({pct(w['f2p_share'])}) | {wo['f2p']} ({pct(wo['f2p_share'])}) |\n")
    t5 = out / "figures-table5"
    md += ["\n## Table V: heterogeneous and single prompting\n\n",
           f"From `{rel(t5 / 'table2_methods.csv')}`: `evootter` writes the 8 tests in one call (single "
           "prompting); `heterogeneous` writes each from its own variant, as published: the issue "
           "morphed (standard, simple, dropCode, initTest, initPatch), BaseBRT's localization and "
           "contextualization run again with it, then one test with imports or bodies masked "
           "(the variants' replies are derived from the single-prompting ones, "
           "`examples/add_variant_replies.py`).\n\n",
           "| prompting | F2P | calls per instance |\n|---|---|---|\n"]
    for r in table(t5 / "table2_methods.csv"):
        md.append(f"| `{r['batch']}` | {r['f2p']} ({pct(r['f2p_share'])}) | "
                  f"{float(r['model_calls_per_instance']):.1f} |\n")
    md += ["\n## Table IV: crossovers from parents without an F2P test\n\n",
           f"From `{rel(t3 / 'table4_evolution.csv')}`: each crossover whose parents held no F2P test, and "
           "those of them whose offspring held one (the rate is blank where there is no such "
           "crossover: on the bundled examples every population before a crossover already held "
           "an F2P test, so this table has no sample here; it fills on benchmarks).\n\n",
           "| batch | crossovers | parents without F2P | offspring with F2P | rate |\n|---|---|---|---|---|\n"]
    for r in table(t3 / "table4_evolution.csv"):
        md.append(f"| `{r['batch']}` | {r['crossovers']} | {r['parents_without_f2p']} | "
                  f"{r['offspring_with_f2p']} | {pct(r['evolution_rate'])} |\n")
    md += ["\n## Fig. 7: F2P tests per instance, initially and in the last generation\n\n",
           f"From `{rel(t3 / 'fig7_f2p_per_instance.csv')}`: how many instances have k F2P tests in "
           "their initial population and in their last generation's.\n\n",
           "| batch | k | instances initially | instances last |\n|---|---|---|---|\n"]
    for r in table(t3 / "fig7_f2p_per_instance.csv"):
        if r["instances_initial"] != "0" or r["instances_last_generation"] != "0":
            md.append(f"| `{r['batch']}` | {r['f2p_tests']} | {r['instances_initial']} | "
                      f"{r['instances_last_generation']} |\n")
    md += ["\n## Fig. 4: selection accuracy per phase\n\n",
           f"From `{rel(t3 / 'fig4_selection_accuracy.csv')}` (the paper's accuracy: 1 when every kept test is "
           "F2P, else the kept F2P tests over the population's; in brackets the instances it is "
           "defined for, those whose population held an F2P test). The SVG beside it draws the "
           "same.\n\n",
           "| batch | phase 1 | phase 2 | phase 3 |\n|---|---|---|---|\n"]
    acc: dict[str, dict[str, str]] = {}
    for r in table(t3 / "fig4_selection_accuracy.csv"):
        acc.setdefault(r["batch"], {})[r["phase"]] = (
            f"{float(r['mean_accuracy']):.2f} ({r['instances_with_f2p']})" if r["mean_accuracy"] else "-")
    for b, ph in acc.items():
        md.append(f"| `{b}` | " + " | ".join(ph.get(p, "-") for p in ("1", "2", "3")) + " |\n")
    md += ["\n## Fig. 5: mutants killed by F2P and other tests\n\n",
           f"From `{rel(t3 / 'fig5_kills.csv')}`: mean kills per test at each cut (`-`: the "
           "population had no such test at that cut).\n\n",
           "| batch | phase | F2P tests | other tests |\n|---|---|---|---|\n"]
    for r in table(t3 / "fig5_kills.csv"):
        if r["batch"].endswith("no-crossover"):
            continue
        k = lambda x: f"{float(x):.1f}" if x else "-"
        md.append(f"| `{r['batch']}` | {r['phase']} | {k(r['mean_kills_f2p'])} | {k(r['mean_kills_other'])} |\n")
    md += ["\n## Fig. 6: F2P share after each crossover\n\n",
           f"From `{rel(t3 / 'fig6_f2p_share.csv')}`.\n\n",
           "| batch | generation 0 | generation 1 | generation 2 |\n|---|---|---|---|\n"]
    share: dict[str, dict[str, str]] = {}
    for r in table(t3 / "fig6_f2p_share.csv"):
        share.setdefault(r["batch"], {})[r["generation"]] = f"{float(r['share']):.2f}"
    for b, g in share.items():
        md.append(f"| `{b}` | " + " | ".join(g.get(x, "-") for x in ("0", "1", "2")) + " |\n")
    md += ["\n## Table VIII: before and after the cutoff\n\n",
           f"From `{rel(t2 / 'table8_cutoff.csv')}` (cutoff {CUTOFF}). The bundled examples carry no "
           "`created_at`, so every instance is counted under \"no created_at\"; rows from SWE-rebench "
           "carry it, and `bench --figures OUT --cutoff DATE` splits them.\n\n",
           "| batch | subset | instances | F2P |\n|---|---|---|---|\n"]
    for r in table(t2 / "table8_cutoff.csv"):
        if r["instances"] != "0":
            md.append(f"| `{r['batch']}` | {r['subset']} | {r['instances']} | {r['f2p']} ({pct(r['f2p_share'])}) |\n")
    md += ["\n## Fig. 8: coverage of the golden patch by the final tests\n\n",
           f"From `{rel(t2 / 'fig8_final_coverage.csv')}`: the harness's coverage of the golden patch's lines "
           "by each final test, all, F2P and non-F2P apart (in brackets the instances).\n\n",
           "| batch | all | F2P | non-F2P |\n|---|---|---|---|\n"]
    cov: dict[str, dict[str, str]] = {}
    for r in table(t2 / "fig8_final_coverage.csv"):
        cov.setdefault(r["batch"], {})[r["final_tests"]] = (
            f"{float(r['mean_coverage']):.2f} ({r['instances']})" if r["mean_coverage"] else "-")
    for b, c in cov.items():
        md.append(f"| `{b}` | {c.get('all', '-')} | {c.get('f2p', '-')} | {c.get('non-f2p', '-')} |\n")
    md.append("\nRegenerate: `cargo build --release && python3 examples/reproduce_paper.py`.\n")
    return "".join(md)


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(here.parent / "target" / "release" / "evootter"))
    ap.add_argument("--out", default="/tmp/evootter-paper")
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--markdown", default=str(here / "PAPER-TABLES.md"))
    ap.add_argument("--tables-only", action="store_true",
                    help="draw the tables and write the markdown again from the batches already in --out")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    examples = sorted(p.parent for p in here.glob("*/instance.toml") if p.parent.name != "fresh"
                      and (p.parent / "llm_script.json").exists())
    if a.tables_only:
        tables(a, examples)
        return 0
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rows_file, repos = rows(examples, out)
    for name, flags in {**TABLE_II, **TABLE_III, **TABLE_V}.items():
        if name == "mutation":
            continue  # the same batch as Table II's `evootter`
        bench(a, rows_file, repos, name, flags)
    (out / "mutation").symlink_to(out / "evootter", target_is_directory=True)
    tables(a, examples)
    return 0


def tables(a, examples) -> None:
    """The batches compared (their figures and CSVs), and the markdown from those."""
    print(compare(a, list(TABLE_II), "figures-table2"))
    print(compare(a, list(TABLE_III), "figures-table3"))
    print(compare(a, ["evootter", *TABLE_V], "figures-table5"))
    pathlib.Path(a.markdown).write_text(markdown(a, examples))
    print(f"wrote {a.markdown}")


if __name__ == "__main__":
    sys.exit(main())
