#!/usr/bin/env python3
"""The emulated boards' flash and SD card beside the simulator's models of
them (issue 45): the same quick tests, the board's figures from the VM
harness's kept results, the model's run here.

    python3 tests/vm/kernel_vm.py BIN --keep-json DIR           # the PC board
    scripts/arm_board.sh --keep-json DIR                        # the ARM board
    python3 bench/board_vs_model.py build/release/storscope DIR

Each board case (`nor_sensorlog`, `nand_sensorlog`, `mmc_sensorlog`) is
run again on the model of the same medium, of the same size, with the
same store options and tests; the table gives a few of their points side
by side and the ratio board / model. The board's times are wall-clock time
in the VM, the model's virtual time (every results file says which).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

# board case -> (the model of its medium, the store on it, what the case ran)
MODELS = {
    "nor_sensorlog": ("sim:nor-spi", "+sensorlog", "B0,M1"),
    "nand_sensorlog": ("sim:nand-slc", "+sensorlog", "B0,M1"),
    "mmc_sensorlog": ("sim:sd-consumer", "+sensorlog,segment=512K", "B0,M1"),
}
# the points shown: (test, point name, chunk bytes)
POINTS = [("B0", "write", 1), ("B0", "write", 1024), ("B0", "read", 1024), ("M1", "randread", 1024)]


def figure(doc, test, name, chunk):
    for t in doc.get("tests", []):
        if t.get("id") != test:
            continue
        for p in t.get("points", []):
            if p.get("name") == name and p.get("params", {}).get("chunk_bytes") == chunk:
                return p.get("runs", {}).get("mean")
    return None


def capacity(doc):
    """The medium's size as the board's run saw it: the whole device (a raw window,
    offset=1M, is 1 MiB less: the model's capacity is in whole erase blocks)."""
    env = doc.get("environment", {})
    for key in ("mtd_capacity_bytes", "raw_capacity_bytes"):
        if isinstance(env.get(key), (int, float)) and env[key] > 0:
            return int(env[key])
    return None


def rate(v):
    if v is None:
        return "-"
    for unit, div in (("GiB/s", 1 << 30), ("MiB/s", 1 << 20), ("KiB/s", 1 << 10)):
        if v >= div:
            return "%.2f %s" % (v / div, unit)
    return "%.0f B/s" % v


def refuse(why):
    print("board_vs_model.py: " + why, file=sys.stderr)
    return 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("kept", help="the directory given to kernel_vm.py --keep-json")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        return refuse("%s: not an executable storscope" % a.binary)
    if not os.path.isdir(a.kept):
        return refuse("%s: no such directory (kernel_vm.py --keep-json DIR makes it)" % a.kept)
    files = sorted(glob.glob(os.path.join(a.kept, "*.json")))
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for f in files:
            # BOARD-CASE.json: the case has no dash, the board may ("vexpress-a9")
            board, _, case = os.path.basename(f)[:-5].rpartition("-")
            if case not in MODELS:
                continue
            with open(f) as fh:
                doc = json.load(fh)
            model, store, tests = MODELS[case]
            size = capacity(doc)
            target = model + (",capacity=%d" % size if size else "") + store
            out = os.path.join(work, "m.json")
            verify = ["--verify"] if doc.get("run", {}).get("verify") else []  # as the board ran
            r = subprocess.run([a.binary, "run", "-q", "-t", target, "--tests", tests, "-o", out]
                               + verify, capture_output=True, text=True)
            if r.returncode:
                return refuse("%s: %s" % (target, r.stderr.strip()))
            with open(out) as fh:
                mdoc = json.load(fh)
            for test, name, chunk in POINTS:
                b, m = figure(doc, test, name, chunk), figure(mdoc, test, name, chunk)
                ratio = "%.2fx" % (b / m) if b and m else "-"
                rows.append((board, case, doc["run"]["target"], target, "%s %s %d B" % (test, name, chunk),
                             rate(b), rate(m), ratio))
    if not rows:
        return refuse("%s: no board results to compare (kernel_vm.py --keep-json)" % a.kept)
    print("| board | case: board target | model | point | board | model | board / model |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for board, case, bt, mt, pt, b, m, ratio in rows:
        print("| %s | %s: `%s` | `%s` | %s | %s | %s | %s |" % (board, case, bt, mt, pt, b, m, ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
