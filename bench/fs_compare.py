#!/usr/bin/python3
"""sensorlog beside FileX, FatFs and littlefs on the same simulated media.

Runs `-T B0,S2,M2,L1,fsync --bisect` (scale quick, virtual time, seed 1) for
each filesystem this storscope was built with, on a 64 MiB SPI NOR (the
FAT filesystems need a managed medium: not there), the study's eMMC and a
consumer SD card, and prints one table row per run:

    python3 bench/fs_compare.py BIN        (BIN built with the filesystems'
                                            sources: docs/third-party-filesystems.md)
"""
import json
import os
import subprocess
import sys
import tempfile

MEDIA = ["nor-spi,capacity=64M", "emmc-stm32u5,capacity=256M", "sd-consumer,capacity=256M"]
FILESYSTEMS = ["filex", "fatfs", "littlefs", "sensorlog"]


def test(doc, tid):
    return next((t for t in doc["tests"] if t["id"] == tid), None)


def b0(doc):
    t = test(doc, "B0")
    out = []
    for c in (1, 64, 1024):
        p = next((p for p in t["points"] if p["name"] == "write" and
                  p["params"]["chunk_bytes"] == c and "runs" in p), None)
        out.append(f"{p['runs']['mean'] / 1024:.0f}" if p else "-")
    return " / ".join(out)


def s2(doc, op):
    t = test(doc, "S2")
    per = {}
    for p in t["points"]:
        if p["name"] == op and p["params"].get("layout") == "flat" and "metrics" in p:
            per[p["params"]["files"]] = p["metrics"]["per_file_mean_ns"] / 1e6
    lo, hi = min(per), max(per)
    e = t.get(f"{op}_exponent_flat")
    prec = 3 if per[hi] < 0.1 else 2
    return f"{per[lo]:.{prec}f} / {per[hi]:.{prec}f} ms ({e:.2f})"


def m2(doc):
    t = test(doc, "M2")
    mx = max((p["metrics"].get("create_max_ns", 0) for p in t["points"] if "metrics" in p),
             default=0)
    return (f"{t.get('create_first_ns', 0) / 1e6:.2f} / {t.get('create_last_ns', 0) / 1e6:.2f} / "
            f"{mx / 1e6:.2f} ms ({t.get('lifecycles', 0)})")


def l1(doc):
    t = test(doc, "L1")
    return " / ".join(f"{t.get(m + '_max_lossless_scale', 0):.3g}x" for m in ("direct", "iotask"))


def fsync(doc, fs):
    if fs == "sensorlog":
        return "n/a (append-only)"
    t = test(doc, "fsync")
    return f"{t['iops']:.3g}" if t and t.get("status") == "ok" else "-"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    bin_ = sys.argv[1]
    built = subprocess.run([bin_, "list", "targets"], capture_output=True, text=True).stdout
    print("| medium | fs | B0 write 1 B / 64 B / 1 KiB (KiB/s) | S2 create per file, N=50 / 250 "
          "(exponent) | S2 open+close per file, N=50 / 250 (exponent) | M2 create first / last / "
          "max (lifecycles) | L1 highest lossless rate: direct / iotask | fsync/s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as d:
        for m in MEDIA:
            for fs in FILESYSTEMS:
                if "+" + fs not in built or (m.startswith("nor") and fs in ("filex", "fatfs")):
                    continue
                out = os.path.join(d, "r.json")
                r = subprocess.run([bin_, "run", "-q", "-t", f"sim:{m}+{fs}", "-T",
                                    "B0,S2,M2,L1,fsync", "--bisect", "-o", out],
                                   capture_output=True, text=True)
                if r.returncode not in (0, 1):
                    sys.exit(f"fs_compare.py: {m}+{fs}: {r.stderr.strip()}")
                doc = json.load(open(out))
                print(f"| {m.split(',')[0]} | {fs} | {b0(doc)} | {s2(doc, 'create')} | "
                      f"{s2(doc, 'open_close')} | {m2(doc)} | {l1(doc)} | {fsync(doc, fs)} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
