#!/usr/bin/env python3
"""Do storscope's guidelines repeat on this machine's real disks? (issue 41)

Runs the same quick run N times on each directory given and counts the
distinct guideline sets (each guideline's claim without its figures, and
the kinds said to be unresolved - bench/verdicts_noise.py's rule). The goal:
one set in N of N. As root, --xfs makes a 1 GiB XFS image written in full
(as bench/fsync_layouts.sh does: a sparse image makes the host allocate
blocks under the first write of each part, bench/README "XFS"), loop-mounts
it and adds it; --xfs-sparse adds a sparse one beside it, for comparison
(both removed after).

    python3 bench/verdicts_disks.py build/release/storscope [--runs-each 10]
        [--dirs /var/tmp] [--xfs] [--xfs-sparse]
        [--what "--tests B2" --what "--suite paper"] [--against OTHER_BINARY]
        [--keep DIR]
    python3 bench/verdicts_disks.py build/release/storscope --reanalyse DIR
        [--against OTHER_BINARY] [--spread]

--against runs another build side by side, one run of each in turn, so
both see the same load (a comparison on an idle machine against a loaded
one says nothing). The directories are taken in turn too, run by run.
--keep DIR keeps every run's results file there (DIR/<target>/<what>/<i>.json,
for a binary given by --against <i>-against.json), to study offline;
--reanalyse DIR reads those files again with each binary's `report` (no
run): the same measurements under two versions of the analysis; with
--spread, how far B2's points move from one execution to the next beside
their intervals within a run (what STS_AN_ANOTHER_EXECUTION rests on).
"""
import argparse
import collections
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdicts_noise import guideline_set, report_set  # noqa: E402  (one rule for both benches)


def mounted_xfs(work, name, sparse):
    """A 1 GiB XFS image loop-mounted under work (sparse: made by truncate,
    else every byte written first); its mount point."""
    if os.geteuid() != 0 or not shutil.which("mkfs.xfs"):
        raise SystemExit("--xfs needs root and xfsprogs (apt-get install xfsprogs)")
    img, mnt = os.path.join(work, name + ".img"), os.path.join(work, name)
    with open(img, "wb") as f:
        if sparse:
            f.truncate(1 << 30)
        else:
            block = bytes(1 << 20)
            for _ in range(1024):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
    subprocess.run(["mkfs.xfs", "-q", img], check=True)
    os.mkdir(mnt)
    subprocess.run(["mount", "-o", "loop", img, mnt], check=True)
    return mnt


def set_text(claims, unresolved):
    parts = sorted(claims) + ["unresolved: " + k for k in sorted(unresolved)]
    return "; ".join(parts) if parts else "(no guideline, nothing unresolved)"


def spread(kept, smallest=4096):
    """Each kept group's B2 points of `smallest` bytes and more: how far a
    point's mean moves from one execution to the next (the standard
    deviation of the means, % of their mean) beside its own 95 % interval
    within a run (the t-interval of its runs, as src/analysis/an_collect.c
    computes it; % of the mean) - medians over the points, and the widest
    move."""
    t975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
            9: 2.262}
    for g in sorted(x for x in glob.glob(os.path.join(kept, "*", "*")) if os.path.isdir(x)):
        pts = collections.defaultdict(list)
        for f in sorted(glob.glob(os.path.join(g, "[0-9]*.json"))):
            if f.endswith("-against.json"):
                continue
            with open(f) as fh:
                doc = json.load(fh)
            for t in doc["tests"]:
                for p in t["points"] if t["id"] == "B2" else []:
                    r, chunk = p.get("runs"), p["params"].get("chunk_bytes", 0)
                    if r and r["n"] >= 2 and r["mean"] > 0 and chunk >= smallest:
                        half = t975.get(r["n"] - 1, 2.0) * r["sd"] / r["n"] ** 0.5
                        pts[p["name"], chunk].append((r["mean"], half / r["mean"]))
        moves = [statistics.stdev([m for m, _ in v]) / statistics.mean([m for m, _ in v])
                 for v in pts.values() if len(v) >= 3]
        halves = [statistics.median([h for _, h in v]) for v in pts.values() if len(v) >= 3]
        if moves:
            print(f"{os.path.relpath(g, kept)}: {len(pts)} points of {smallest} B and more; "
                  f"between executions a mean moves {100 * statistics.median(moves):.1f} % "
                  f"(sd; widest {100 * max(moves):.1f} %), its 95 % interval within a run "
                  f"+-{100 * statistics.median(halves):.1f} % (medians)")
    return 0


def reanalyse(kept, binaries):
    """The guideline sets of every results file under kept (--keep's
    layout), as each binary's analysis reads them."""
    groups = sorted(g for g in glob.glob(os.path.join(kept, "*", "*")) if os.path.isdir(g))
    if not groups:
        raise SystemExit(f"{kept}: no results kept there (see --keep)")
    for g in groups:
        files = sorted(glob.glob(os.path.join(g, "*.json")))
        for b in binaries:
            sets = collections.Counter(set_text(*report_set(b, f)) for f in files)
            print(f"{os.path.relpath(g, kept)} [{b}]: {len(sets)} set(s) in {len(files)} runs")
            for s, n in sets.most_common():
                print(f"    {n:3d} x  {s}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--runs-each", type=int, default=10)
    ap.add_argument("--dirs", default="/var/tmp")
    ap.add_argument("--xfs", action="store_true", help="a loop-mounted XFS, its image written")
    ap.add_argument("--xfs-sparse", action="store_true", help="a loop-mounted XFS, its image sparse")
    ap.add_argument("--what", action="append", default=None)
    ap.add_argument("--against", default=None, help="another binary, run in turn with it")
    ap.add_argument("--keep", default=None, help="a directory for every run's results file")
    ap.add_argument("--reanalyse", default=None, help="a --keep directory to read again")
    ap.add_argument("--spread", action="store_true",
                    help="with --reanalyse: how far B2's points move between executions")
    a = ap.parse_args()
    binaries = [a.binary] + ([a.against] if a.against else [])
    if a.reanalyse and a.spread:
        return spread(a.reanalyse)
    if a.reanalyse:
        return reanalyse(a.reanalyse, binaries)
    whats = a.what or ["--tests B2", "--suite paper"]
    work = tempfile.mkdtemp(prefix="verdicts.")
    mounts = []
    try:
        dirs = [d for d in a.dirs.split(",") if d]
        for name, sparse, wanted in (("xfs", False, a.xfs), ("xfs-sparse", True, a.xfs_sparse)):
            if wanted:
                mounts.append(mounted_xfs(work, name, sparse))
                dirs.append(mounts[-1])
        out = os.path.join(work, "r.json")
        kind = {d: subprocess.run(["stat", "-f", "-c", "%T", d], capture_output=True,
                                  text=True).stdout.strip() for d in dirs}
        for what in whats:
            sets = {(d, b): collections.Counter() for d in dirs for b in binaries}
            for i in range(a.runs_each):
                for d in dirs:
                    for b in binaries:
                        c, u = guideline_set(b, "posix:" + d, None, 1, out, 0,
                                             select=what.split())
                        sets[d, b][set_text(c, u)] += 1
                        if a.keep:
                            kept = os.path.join(a.keep, os.path.basename(d),
                                                "-".join(what.split()).lstrip("-"))
                            os.makedirs(kept, exist_ok=True)
                            shutil.copy(out, os.path.join(
                                kept, f"{i}{'-against' if b != a.binary else ''}.json"))
            for d in dirs:
                for b in binaries:
                    who = f" [{b}]" if a.against else ""
                    print(f"posix:{d} ({kind[d]}) {what}{who}: {len(sets[d, b])} set(s) in "
                          f"{a.runs_each} runs")
                    for s, n in sets[d, b].most_common():
                        print(f"    {n:3d} x  {s}")
        return 0
    finally:
        for m in mounts:
            subprocess.run(["umount", m], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
