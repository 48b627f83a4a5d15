#!/usr/bin/python3
"""The reference study (seed 000) cell by cell beside storscope (issue 17).

Runs B0, B1, B2, M1 and S2 at full scale on the study's stack as the
simulator holds it - `sim:emmc-stm32u5+filex` (FileX built from the
developer's own copy: -DSTORSCOPE_FILEX_DIR) - and prints every number the
study publishes for them beside storscope's, with the ratio per cell, then
the shape checks. `--params` sets model parameters (e.g. a recalibration to
try: --params cmd_read=155us,read_access=0); several --params run side by
side. Virtual time: the figures repeat exactly.

    python3 bench/study.py BIN [--params K=V,...]...

BIN must be a storscope built with FileX; without it the bench says so and
exits 2 (CI has no FileX: it is a bench, not a test).

The study's kB/s are taken as 1000 B/s, as written. Its figures are as
tests/fixtures/README.md and the seed give them; "~" values were read off
the text.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

KB = 1000.0  # the study's kB


def rate(doc, test, op, chunk):
    for t in doc["tests"]:
        if t["id"] == test:
            for p in t["points"]:
                if p["name"] == op and p["params"].get("chunk_bytes") == chunk and "runs" in p:
                    return p["runs"]["mean"] / KB
    return None


def m1_total_ms(doc, chunk):
    for t in doc["tests"]:
        if t["id"] == "M1":
            for p in t["points"]:
                if p["params"].get("chunk_bytes") == chunk and "metrics" in p:
                    return p["metrics"]["mean_latency_ns"] * p["params"]["reads"] / 1e6
    return None


def s2_total_ms(doc, op, files):
    for t in doc["tests"]:
        if t["id"] == "S2":
            for p in t["points"]:
                prm = p["params"]
                if (p["name"] == op and prm.get("files") == files and prm.get("layout") == "flat"
                        and "runs" in p):
                    return p["runs"]["mean"] / 1e6
    return None


# (test, cell, the study's value, how to read it from storscope's results)
CELLS = [
    ("B0", "read at 1 B (kB/s)", 150, lambda d: rate(d, "B0", "read", 1)),
    ("B0", "read at 1 KiB (kB/s)", 4000, lambda d: rate(d, "B0", "read", 1024)),
    ("B0", "write at 1 B (kB/s)", 100, lambda d: rate(d, "B0", "write", 1)),
    ("B0", "write at 1 KiB (kB/s)", 1650, lambda d: rate(d, "B0", "write", 1024)),
    ("B1", "read at 2 MiB (kB/s)", 28000, lambda d: rate(d, "B1", "read", 2 << 20)),
    ("B1", "write at 2 MiB (kB/s)", 26000, lambda d: rate(d, "B1", "write", 2 << 20)),
    ("B2", "read at 2 MiB (kB/s)", 14000, lambda d: rate(d, "B2", "read", 2 << 20)),
    ("M1", "1000 reads of 64 B (ms)", 195, lambda d: m1_total_ms(d, 64)),
    ("M1", "1000 reads of 1 KiB (ms)", 270, lambda d: m1_total_ms(d, 1024)),
]
for files, oc, dl, cr in ((200, 723.00, 782.30, 2029.40), (400, 2720.50, 2602.20, 7531.20),
                          (600, 5991.60, 5467.40, 16498.20), (800, 10538.20, 9373.20, 28929.90),
                          (1000, 16360.70, 14324.90, 44841.00)):
    CELLS.append(("S2", f"open+close {files} files, total (ms)", oc,
                  lambda d, f=files: s2_total_ms(d, "open_close", f)))
    CELLS.append(("S2", f"delete {files} files, total (ms)", dl,
                  lambda d, f=files: s2_total_ms(d, "delete", f)))
    CELLS.append(("S2", f"create {files} files, total (ms)", cr,
                  lambda d, f=files: s2_total_ms(d, "create", f)))


def knee_and_plateau(doc):
    """Shapes: B0's write knee (the chunk after which one doubling gains < 2x
    of what the step before it gained), B2's read plateau start (first chunk
    within 10 % of the largest), B2's write dip at 128 KiB."""
    b2 = {c: rate(doc, "B2", "read", c) for c in [1 << k for k in range(22)]}
    top = max(v for v in b2.values() if v)
    plateau = min(c for c, v in b2.items() if v and v >= 0.9 * top)
    w = {c: rate(doc, "B2", "write", c) for c in (64 << 10, 128 << 10, 256 << 10)}
    dip = w[128 << 10] < 0.8 * min(w[64 << 10], w[256 << 10]) if all(w.values()) else False
    b0 = {c: rate(doc, "B0", "write", c) for c in [1 << k for k in range(11)]}
    step = {c: b0[c] / b0[c // 2] for c in b0 if c > 1 and b0[c] and b0[c // 2]}
    knee = max(step, key=lambda c: step[c])  # the largest single-doubling gain
    return plateau, dip, knee, step[knee]


def s2_exponent(doc):
    for t in doc["tests"]:
        if t["id"] == "S2":
            return t.get("open_close_exponent_flat"), t.get("open_close_exponent_flat_ci95")
    return None, None


def run(bin_, params):
    spec = "sim:emmc-stm32u5" + ("," + params if params else "") + "+filex"
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        r = subprocess.run([bin_, "run", "-q", "-t", spec, "--tests", "B0,B1,B2,M1,S2",
                            "--scale", "full", "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"study.py: {spec}: {r.stderr.strip()}")
        return json.load(open(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--params", action="append", default=[],
                    help="model parameters (key=value,...); repeat to compare")
    a = ap.parse_args()
    probe = subprocess.run([a.bin, "list", "targets"], capture_output=True, text=True)
    if "+filex" not in probe.stdout:
        print("study.py: skipped: this storscope has no +filex (build it with "
              "-DSTORSCOPE_FILEX_DIR=<FileX source>)")
        return 2
    configs = a.params or [""]
    docs = [run(a.bin, p) for p in configs]
    names = [p or "model as shipped" for p in configs]
    head = "| test | cell | study | " + " | ".join(f"{n} (ratio)" for n in names) + " |"
    print(head)
    print("| --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
    within = [0] * len(docs)
    for test, label, study, get in CELLS:
        cells = []
        for i, d in enumerate(docs):
            v = get(d)
            if v is None:
                cells.append("-")
                continue
            ratio = v / study
            within[i] += 0.75 <= ratio <= 1.25
            cells.append(f"{v:,.1f} ({ratio:.2f}x)")
        print(f"| {test} | {label} | {study:,} | " + " | ".join(cells) + " |")
    print()
    print("Cells within +-25 % of the study: " +
          ", ".join(f"{n}: {w} of {len(CELLS)}" for n, w in zip(names, within)))
    print()
    print("| shape check | study | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    shapes = [knee_and_plateau(d) for d in docs]
    exps = [s2_exponent(d) for d in docs]

    def kib(c):
        return f"{c // 1024} KiB" if c >= 1024 else f"{c} B"
    print("| B0 write: largest one-doubling gain at | 512 B | " +
          " | ".join(f"{kib(s[2])} ({s[3]:.1f}x)" for s in shapes) + " |")
    print("| B2 read plateau (within 10 % of the top) from | 64 KiB | " +
          " | ".join(kib(s[0]) for s in shapes) + " |")
    print("| B2 write dip at 128 KiB (> 20 % below both neighbours) | yes | " +
          " | ".join("yes" if s[1] else "no" for s in shapes) + " |")
    print("| S2 open+close exponent (O(n) per file: 1) | 0.94 (Table 3) | " +
          " | ".join(f"{e:.2f} +- {c:.2f}" if e is not None else "-" for e, c in exps) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
