#!/usr/bin/python3
"""The results archive at scale (issue 48): import and query times for N
archived runs (10,000 by default), on SQLite and on PostgreSQL.

    python3 bench/archive.py BIN [--runs N] [--dir DIR] [--postgres]

--postgres adds the same on a PostgreSQL cluster made for the bench
(tests/cli/pg_cluster.py: Debian's server, a Unix socket, commits synced
as SQLite's are), a column beside SQLite's.

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


def measure(a, url, files):
    """Each operation's (label, seconds, what it gave) on the archive url."""
    arch = ["--db", url]
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
        rows.append((label, dt, f"{out.count(chr(10)):,} lines"))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--dir", help="where the archive and the documents go (default: a "
                    "temporary directory, removed after)")
    ap.add_argument("--postgres", action="store_true", help="the same on PostgreSQL beside")
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
        engines = [("SQLite", "sqlite:" + os.path.join(work, "results.db"))]
        cluster = None
        if a.postgres:
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                            "tests", "cli"))
            import pg_cluster
            cluster = pg_cluster.start(durable=True)
            if not cluster:
                sys.exit(f"archive.py: --postgres: {pg_cluster.why_not()}")
            engines.append(("PostgreSQL", cluster.new_database()))
        try:
            cols = [measure(a, url, files) for _, url in engines]
        finally:
            if cluster:
                cluster.stop()
        sqlite_path = engines[0][1][len("sqlite:"):]
        print(f"{a.runs:,} runs of {points} points each ({size:,} B documents); the SQLite "
              f"archive {os.path.getsize(sqlite_path) / 2**20:,.1f} MiB (WAL)")
        print()
        print("| operation | " + " | ".join(f"{n}: wall time (s)" for n, _ in engines) +
              " | what it gave |")
        print("| --- | " + " | ".join("---" for _ in engines) + " | --- |")
        for k, (label, _, what) in enumerate(cols[0]):
            if k == 0:  # the import's rate, each engine's
                what = ", ".join(f"{n} {c[0][2]}" for (n, _), c in zip(engines, cols))
            print(f"| {label} | " + " | ".join(f"{c[k][1]:.3f}" for c in cols) + f" | {what} |")
    finally:
        if not a.dir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
