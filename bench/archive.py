#!/usr/bin/python3
"""The results archive at scale (issue 48): import and query times for N
archived runs (10,000 by default), SQLite.

    python3 bench/archive.py BIN [--runs N] [--dir DIR]

One results file is made (B0 and fsync on sim:sd-consumer, quick), then N
documents from it, each another run: its started_at a second later, its
target one of ten cards (";card=K" in the target), its seed its number. They
are imported in batches of 1,000 files by `storscope db import`, then each
query is timed as a user runs it: list all, list one card's, list by test,
show one run, compare two, export everything as CSV. Wall-clock seconds on
this machine (the archive on DIR's filesystem, fsync on each run's commit);
the archive's size on disk is printed too."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def timed(args, **kw):
    t = time.perf_counter()
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"archive.py: {' '.join(args[:4])}...: exit {r.returncode}: {r.stderr.strip()}")
    return dt, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--dir", help="where the archive and the documents go (default: a "
                    "temporary directory, removed after)")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"archive.py: {a.bin} is not an executable storscope")
    if a.runs < 2:
        sys.exit("archive.py: --runs must be at least 2")
    if subprocess.run([a.bin, "db", "--help"], capture_output=True).returncode:
        sys.exit("archive.py: this storscope has no results archive (built without SQLite)")
    work = a.dir or tempfile.mkdtemp(prefix="archive-bench.")
    os.makedirs(work, exist_ok=True)
    try:
        base = os.path.join(work, "base.json")
        timed([a.bin, "run", "-q", "-t", "sim:sd-consumer,capacity=64M", "--tests", "B0,fsync",
               "-d", "2s", "-o", base])
        doc = json.load(open(base))
        points = sum(len(t["points"]) for t in doc["tests"])
        docs = os.path.join(work, "docs")
        os.makedirs(docs, exist_ok=True)
        files = []
        for i in range(a.runs):
            doc["run"]["target"] = f"sim:sd-consumer,capacity=64M;card={i % 10}"
            doc["run"]["seed"] = i + 1
            doc["run"]["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                     time.gmtime(1.7e9 + i * 60))
            path = os.path.join(docs, f"{i}.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            files.append(path)
        size = os.path.getsize(files[0])
        db = os.path.join(work, "results.db")
        if os.path.exists(db):
            os.remove(db)
        arch = ["--db", "sqlite:" + db]
        t_import = 0.0
        for k in range(0, len(files), 1000):
            dt, _ = timed([a.bin, "db", "import", "-q", *arch, *files[k:k + 1000]])
            t_import += dt
        rows = [("import (batches of 1,000 files)", t_import, f"{a.runs / t_import:,.0f} runs/s")]
        for label, args in (("list all", ["list"]),
                            ("list one card's (a tenth)", ["list", "--target", "card=3"]),
                            ("list by test (fsync)", ["list", "--test", "fsync"]),
                            ("show one run", ["show", str(a.runs // 2)]),
                            ("compare two runs", ["compare", "1", str(a.runs)]),
                            ("export every point as CSV", ["export", "--csv"])):
            dt, out = timed([a.bin, "db", args[0], *arch, *args[1:]])
            lines = out.count("\n")
            rows.append((label, dt, f"{lines:,} lines"))
        print(f"{a.runs:,} runs of {points} points each ({size:,} B documents), archive "
              f"{os.path.getsize(db) / 2**20:,.1f} MiB (SQLite, WAL)")
        print()
        print("| operation | wall time (s) | what it gave |")
        print("| --- | --- | --- |")
        for label, dt, what in rows:
            print(f"| {label} | {dt:.3f} | {what} |")
    finally:
        if not a.dir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
