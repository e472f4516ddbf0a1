#!/usr/bin/env python3
"""Add heterogeneous prompting's recorded replies to each bundled example's llm_script.json.

Heterogeneous prompting as published (`--prompting heterogeneous`, the paper's Sec. III-B and
Table V) writes each of the n tests from its own variant: the issue morphed in one of five
styles, BaseBRT's localization and contextualization run again with it, then one test with a
context mask. These replies are SCRIPTED, derived from the example's own recorded replies:

- each morph (match `Style: STYLE.`) is the original issue under a `[STYLE rewrite, scripted]`
  line, so a variant's prompts can be told apart by it;
- each morphed variant's localization and contextualization replies (match the morph's line)
  are the example's replies for the original issue (the same files and functions);
- variant i's test is test i of the example's single-prompting reply (one test per call);
  the two variants on the original issue match the one-test prompt's wording.

Run once after changing an example's replies; it replaces the entries it added before.

    python3 examples/add_variant_replies.py
"""
import json
import pathlib
import re

STYLES = ["standard", "simple", "dropCode", "initTest", "initPatch"]
# The engine's variants for n = 8: the original issue, the five morphs, the original, standard.
VARIANTS = [None, "standard", "simple", "dropCode", "initTest", "initPatch", None, "standard"]
BASEBRT = ["localize_files", "localize_functions", "localize_refine", "context_imports", "context_location"]
ONE_TEST = "Write a pytest test file that reproduces"
TAG = "heterogeneous"


def marker(style: str) -> str:
    return f"[{style} rewrite, scripted]"


def tests_of(reply: str) -> list[str]:
    return [f"### {m.group(1)}\n```python\n{m.group(2)}```\n"
            for m in re.finditer(r"### (\S+\.py)\n```python\n(.*?)```", reply, re.S)]


def main() -> None:
    here = pathlib.Path(__file__).resolve().parent
    for script in sorted(here.glob("*/llm_script.json")):
        doc = json.loads(script.read_text())
        entries = [e for e in doc["entries"] if e.get("variant") != TAG]
        issue = (script.parent / "issue.md").read_text().strip()
        first = {}
        for e in entries:
            first.setdefault(e["step"], e)
        tests = tests_of(first["generate"]["reply"])
        assert len(tests) >= len(VARIANTS), script
        added = []
        for style in STYLES:
            added.append({"step": "morph_issue", "match": f"Style: {style}.",
                          "reply": f"{marker(style)}\n\n{issue}"})
        morphed = [(i, s) for i, s in enumerate(VARIANTS) if s]
        for i, style in morphed:
            for step in BASEBRT:
                added.append({"step": step, "match": marker(style), "reply": first[step]["reply"]})
        for i, style in morphed:
            added.append({"step": "generate", "match": marker(style), "reply": tests[i]})
        for i, style in enumerate(VARIANTS):
            if style is None:
                added.append({"step": "generate", "match": ONE_TEST, "reply": tests[i]})
        for a in added:
            a["variant"] = TAG
        # Before the single-prompting reply, whose match (the issue's words) the one-test
        # prompts on the original issue also contain.
        at = entries.index(first["generate"])
        doc["entries"] = entries[:at] + added + entries[at:]
        script.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        print(f"{script.parent.name}: {len(added)} replies for heterogeneous prompting")


if __name__ == "__main__":
    main()
