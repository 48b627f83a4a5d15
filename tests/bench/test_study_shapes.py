#!/usr/bin/python3
"""bench/study.py counts an M2 fit cell only where the series has the
study's shape (issue 46 defect 4): a linear series' exponential B of 0.75x
was counted as within. Two synthetic M2 documents, one linear and one
exponential, with the same fit figures: only the exponential one counts."""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("study", os.path.join(here, "../../bench/study.py"))
study = importlib.util.module_from_spec(spec)
spec.loader.exec_module(study)


def doc(exp_r2, line_r2):
    return {"tests": [{"id": "M2", "status": "ok", "create_exp_a_ns": 38.06e6,
                       "create_exp_b_per_day": 0.72, "create_exp_r2": exp_r2,
                       "create_line_r2": line_r2}]}


fails = []
cell = ("M2", "create fit B (per day)")
b = study.m2_field(doc(0.77, 0.9999), "create_exp_b_per_day")
ratio = study.judge(b, 0.96)
if abs(ratio - 0.75) > 1e-9:
    fails.append(f"the synthetic B should judge 0.75x, got {ratio}")
linear = study.shape_broken(*cell, doc(0.77, 0.9999))
if not linear or "linear" not in linear:
    fails.append(f"a linear series (R^2 0.9999 against 0.77) was not named: {linear!r}")
if study.counts(ratio, linear):
    fails.append("a linear series' fit B counted as within")
expo = study.shape_broken(*cell, doc(0.98, 0.90))
if expo is not None or not study.counts(ratio, expo):
    fails.append(f"an exponential series' fit B at 0.75x did not count: {expo!r}")
if study.shape_broken("M2", "create with 1 GB free (ms)", doc(0.77, 0.9999)) is not None:
    fails.append("a cell without a shape was judged by one")
if study.shape_broken(*cell, {"tests": []}) is None:
    fails.append("a fit cell without fits passed its shape check")
for f in fails:
    print("FAILED:", f)
print(f"{6 - len(fails)} of 6 checks passed")
sys.exit(1 if fails else 0)
