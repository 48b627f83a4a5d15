#!/usr/bin/python3
"""bench/study.py counts an M2 fit cell only where the series has the
study's shape (issue 46 defect 4): a linear series' exponential B of 0.75x
was counted as within. Two synthetic M2 documents, one linear and one
exponential, with the same fit figures: only the exponential one counts.
B1's cells, which contradict B2 in the study itself, are shown and not
scored (issue 46); S1's shape says which scheme keeps its throughput at
which priority, from synthetic S1 documents whose answers are set here."""
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
# B1 is out of the score, and nothing else is
if study.scored("B1"):
    fails.append("B1's cells are scored")
for t in ("B0", "B2", "M1", "S2", "M2"):
    if not study.scored(t):
        fails.append(f"{t}'s cells are not scored")


def s1doc(kept, above=False):
    """An S1 document whose points keep kept[mode][n-1] % with n load tasks,
    the same at every chunk (0 load tasks: all of it)."""
    pts = []
    for mode, ks in kept.items():
        for op in ("read", "write"):
            for chunk in (1, 64, 1024, 8192):
                for n in range(5):
                    k = 100 if n == 0 else ks[n - 1]
                    pts.append({"params": {"op": op, "mode": mode, "chunk_bytes": chunk,
                                           "load_tasks": n},
                                "metrics": {"degradation": 1 - k / 100}})
    return {"tests": [{"id": "S1", "priority_applied": above, "points": pts}]}


equal = s1doc({"direct": [52, 12, 3, 2], "mutex": [50, 33, 25, 20], "iotask": [97, 96, 95, 91]})
above = s1doc({"direct": [99, 99, 98, 98], "mutex": [100, 99, 99, 98], "iotask": [99, 98, 97, 96]},
              True)
rows, verdict = study.s1_shape(equal, above)
row = {(m, op): cells for m, op, _, cells in rows}
if row.get(("direct", "read")) != ["52 / 12 / 3 / 2", "99 / 99 / 98 / 98"]:
    fails.append(f"S1 direct reads kept: {row.get(('direct', 'read'))}")
want = {("direct", "equal"): False, ("mutex", "equal"): False, ("iotask", "equal"): True,
        ("direct", "above"): True, ("mutex", "above"): True, ("iotask", "above"): True}
if verdict != want:
    fails.append(f"S1's verdict: {verdict}, not {want}")
rows, verdict = study.s1_shape(equal, None)
if any(cells[1] != "-" for _, _, _, cells in rows) or ("direct", "above") in verdict:
    fails.append("S1's shape without the above-the-load document filled its column")
# S1's loss and kept share over four chunks are the same median read two
# ways (statistics.median is the reference): they took opposite middles
import statistics
four = s1doc({"direct": [0, 0, 0, 0]})
for p, lost in zip((p for p in four["tests"][0]["points"] if p["params"]["op"] == "read"
                    and p["params"]["load_tasks"] == 1), (46.0, 79.0, 76.4, 25.9)):
    p["params"]["chunk_bytes"] = {46.0: 1, 79.0: 64, 76.4: 1024, 25.9: 8192}[lost]
    p["metrics"]["degradation"] = lost / 100
want = statistics.median([46.0, 79.0, 76.4, 25.9])
got_loss = study.s1_loss(four, "read", 1)
got_kept = study.s1_kept(four, "read", "direct", 1)
if abs(got_loss - want) > 1e-9 or abs(got_kept - (100 - want)) > 1e-9:
    fails.append(f"S1's median over four chunks: loss {got_loss}, kept {got_kept}, "
                 f"not {want} and {100 - want}")
for f in fails:
    print("FAILED:", f)
print(f"{14 - len(fails)} of 14 checks passed")
sys.exit(1 if fails else 0)
