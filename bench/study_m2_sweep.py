#!/usr/bin/python3
"""M2's cliff on the study's stack: FileX set-ups side by side (issue 46).

Runs M2 at full scale on `sim:emmc-stm32u5+filex,OPTS` for each set of
FileX options given, with each storscope binary given (FileX's compile-time
options, such as FX_MAX_FAT_CACHE, need a build of their own), and prints
M2's twelve cells of bench/study.py beside the study's, with where create
crosses 200 ms and how many device reads a lifecycle took at the end (what
the directory walk costs). Virtual time: the figures repeat exactly.

    python3 bench/study_m2_sweep.py --bin LABEL=BIN [--bin LABEL=BIN]...
                                    --filex OPTS [--filex OPTS]... [--series N]

--series N prints, after the table, every Nth lifecycle of each run: the
files in the directory, the free space, create's and open's latency and
the device reads (where the cliff falls and how fast it rises).

BIN must be a storscope built with FileX (-DSTORSCOPE_FILEX_DIR); an
empty OPTS is the +filex default. Exits 2 without FileX or on bad
arguments (CI has no FileX: it is a bench, not a test).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import study  # noqa: E402  (one set of cells and one judge for both benches)

M2_CELLS = [c for c in study.CELLS if c[0] == "M2"]


def run_m2(bin_, opts):
    spec = "sim:emmc-stm32u5+filex" + ("," + opts if opts else "")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        r = subprocess.run([bin_, "run", "-q", "-t", spec, "--tests", "M2", "--scale", "full",
                            "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"study_m2_sweep.py: {bin_} {spec}: {r.stderr.strip()}")
        return json.load(open(out))


def last_reads(doc):
    t = study.m2_test(doc)
    pts = [p for p in t["points"] if "device" in p] if t else []
    return pts[-1]["device"]["reads"] if pts else None


def fmt(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2g}"


def row(label, opts, doc):
    cells, within = [], 0
    for test, name, ref, get in M2_CELLS:
        v = get(doc)
        if v is None:
            cells.append("-")
            continue
        ratio = study.judge(v, ref)
        broken = study.shape_broken(test, name, doc)
        ok = study.counts(ratio, broken)
        within += ok
        cells.append(f"{fmt(v)} ({ratio:.2f}x{'' if ok else ', out'})")
    shapes = study.m2_shapes(doc)
    cross = "never" if shapes[0] is None else f"{100 * shapes[0]:.1f} %"
    expo = "yes" if shapes[1] else "no"
    return [label, opts or "(default)", cross, expo] + cells + [f"{last_reads(doc):,}",
                                                                 f"{within} of {len(M2_CELLS)}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", action="append", required=True, metavar="LABEL=BIN")
    ap.add_argument("--filex", action="append", required=True, metavar="OPTS")
    ap.add_argument("--series", type=int, default=0, metavar="N")
    a = ap.parse_args()
    if a.series < 0:
        print("study_m2_sweep.py: --series wants a positive count", file=sys.stderr)
        return 2
    bins = []
    for b in a.bin:
        label, eq, path = b.rpartition("=")  # (a label may hold "=")
        if not eq or not label or not os.access(path, os.X_OK):
            print(f"study_m2_sweep.py: --bin {b}: want LABEL=an executable storscope",
                  file=sys.stderr)
            return 2
        if not study.has_filex(path):
            print(f"study_m2_sweep.py: {path} was built without FileX "
                  "(-DSTORSCOPE_FILEX_DIR): skipped", file=sys.stderr)
            return 2
        bins.append((label, path))
    head = ["build", "+filex options", "create crosses 200 ms at (free)",
            "exponential beats a line"] + [name for _, name, _, _ in M2_CELLS] + [
            "device reads, last lifecycle", "M2 cells within 25 %"]
    study_row = ["study", "", "40-50 %", "yes"] + [study.show(ref) for _, _, ref, _ in M2_CELLS] + [
        "", ""]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    print("| " + " | ".join(study_row) + " |")
    docs = []
    for label, path in bins:
        for opts in a.filex:
            docs.append((label, opts, run_m2(path, opts)))
            print("| " + " | ".join(row(*docs[-1])) + " |", flush=True)
    for label, opts, doc in docs if a.series else []:
        print(f"\n{label}, +filex,{opts}: lifecycle, files, free, create ms, open ms, reads")
        pts = study.m2_test(doc)["points"]
        for i, p in enumerate(pts):
            if i % a.series == 0 or i == len(pts) - 1:
                m = p["metrics"]
                print(f"{i:5d} {m['files']:5d} {100 * m['free_bytes'] / m['total_bytes']:5.1f} % "
                      f"{m['create_ns'] / 1e6:9.2f} {m['open_ns'] / 1e6:9.2f} "
                      f"{p['device']['reads']:7,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
