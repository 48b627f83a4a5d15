#!/usr/bin/env python3
"""Peak memory and CPU of storscope runs (issue 43), measured with wait4:
peak RSS, CPU time (user + system: wall time is noise on a shared host),
the simulated device time the run covered, and simulated seconds per CPU
second. With --against OTHER, the same runs of another binary one after
the other, and the ratios (e.g. the code before a change).

    python3 bench/rss_cpu.py build/release/storscope [--against OLD_BIN]
        [--cases main,paper,paper-sensorlog,paper-full-sensorlog,per-test,growth]
        [--profiles emmc-stm32u5,nor-spi]

main: the two runs of scripts/main_job.sh; paper: suite paper at scale
quick on each profile bare; paper-sensorlog: the same through +sensorlog;
paper-full-sensorlog: at scale full; per-test: each test of paper alone on
the study's eMMC, bare and through +sensorlog (simulated seconds per CPU
second per test); growth: how memory and CPU grow with the scale (B0, S2's
files: 250 quick, the study's 1,000 and 5,000 full; M2's days), and with
the model's capacity (1, 4 and 16 GiB), through +sensorlog.
Exits 1 when the main job's peak RSS passes --max-main-rss (MiB; issue 43's
256), so scripts/test.sh can hold it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROFILES = ["emmc-stm32u5", "sd-consumer", "sd-a2", "emmc-industrial", "nor-spi", "nand-slc",
            "ssd-sata-consumer", "ssd-sata-plp", "nvme-consumer", "nvme-plp", "ram"]


def measure(binary, args):
    """(CPU s, peak RSS MiB, simulated s, status, operations) of one run:
    operations from the points' ops_per_run x runs, 0 where no point says."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        with open(os.devnull, "w") as null:
            p = subprocess.Popen([binary, *args, "-q", "-o", out], stdout=null, stderr=null)
            _, status, ru = os.wait4(p.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        sim = ops = 0.0
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
            sim = doc.get("elapsed_ns", 0) / 1e9
            ops = sum(p.get("metrics", {}).get("ops_per_run", 0) * p["runs"]["n"]
                      for t in doc.get("tests", []) for p in t.get("points", []) if "runs" in p)
        return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, sim, rc, ops


def cases(which, profiles):
    out = []
    if "main" in which:
        out += [("main job: paper on sim:emmc-stm32u5", ["run", "-t", "sim:emmc-stm32u5"]),
                ("main job: B0,M1 on sim:emmc-stm32u5+sensorlog",
                 ["run", "-t", "sim:emmc-stm32u5+sensorlog", "--tests", "B0,M1"])]
    for p in profiles:
        # raw NAND takes a store: bare extents cannot skip its bad blocks
        if "paper" in which and p != "nand-slc":
            out.append((f"paper on sim:{p}", ["run", "-t", f"sim:{p}", "--suite", "paper"]))
        if "paper-sensorlog" in which:
            out.append((f"paper on sim:{p}+sensorlog",
                        ["run", "-t", f"sim:{p}+sensorlog", "--suite", "paper"]))
    if "paper-full-sensorlog" in which:
        out += [(f"paper --scale full on sim:{p}+sensorlog",
                 ["run", "-t", f"sim:{p}+sensorlog", "--suite", "paper", "--scale", "full"])
                for p in profiles]
    if "per-test" in which:
        for fs in ("", "+sensorlog"):
            out += [(f"{t} on sim:emmc-stm32u5{fs}", ["run", "-t", "sim:emmc-stm32u5" + fs,
                                                     "--tests", t])
                    for t in ("B0", "B1", "B2", "M1", "S2", "M2")]
    if "growth" in which:
        lg = "sim:emmc-stm32u5+sensorlog"
        out += [(f"{t} --scale {sc} on {lg}", ["run", "-t", lg, "--tests", t, "--scale", sc])
                for t in ("B0", "S2", "M2") for sc in ("quick", "full")]
        out += [(f"paper on sim:emmc-stm32u5,capacity={c}+sensorlog",
                 ["run", "-t", f"sim:emmc-stm32u5,capacity={c}+sensorlog", "--suite", "paper"])
                for c in ("1G", "4G", "16G")]
    return out


CASES = ("main", "paper", "paper-sensorlog", "paper-full-sensorlog", "per-test", "growth")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--against", help="another storscope binary, run the same way")
    ap.add_argument("--cases", default="main,paper,paper-sensorlog")
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--max-main-rss", type=float, default=0,
                    help="MiB: exit 1 when a main-job run peaks above it")
    a = ap.parse_args()
    for b in [a.binary] + ([a.against] if a.against else []):
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            ap.error(f"{b}: not an executable storscope (build it: cmake --build --preset release)")
    which = set(a.cases.split(","))
    unknown = which - set(CASES)
    if unknown:
        ap.error("--cases takes " + ", ".join(CASES) + "; not " + ", ".join(sorted(unknown)))
    bins = [a.binary] + ([a.against] if a.against else [])
    # simulated seconds per CPU second rewards a slow medium and punishes a
    # fast store (sensorlog makes 1 B writes 700x faster in simulated time
    # for the same host work): CPU per operation says what the host spends
    head = ("| run | CPU s | peak RSS MiB | simulated s | simulated s per CPU s |"
            " operations | CPU ns per operation |")
    if a.against:
        head += " CPU s, other | peak RSS MiB, other | CPU ratio (this / other) |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    over = []
    for name, args in cases(which, a.profiles.split(",")):
        got = [measure(b, args) for b in bins]
        cpu, rss, sim, rc, ops = got[0]
        row = f"| {name}{'' if rc == 0 else f' (exit {rc})'} | {cpu:.2f} | {rss:.1f} | {sim:.1f} | "
        row += f"{sim / cpu:.1f} |" if cpu > 0 else "- |"
        row += f" {ops:,.0f} | {cpu / ops * 1e9:,.0f} |" if ops > 0 else " - | - |"
        if a.against:
            c2, r2, _, rc2, _ = got[1]
            row += f" {c2:.2f}{'' if rc2 == 0 else f' (exit {rc2})'} | {r2:.1f} | "
            row += f"{cpu / c2:.2f}x |" if c2 > 0 else "- |"
        print(row, flush=True)
        if a.max_main_rss and name.startswith("main job") and rss > a.max_main_rss:
            over.append(f"{name}: {rss:.1f} MiB")
    if over:
        print(f"peak RSS over {a.max_main_rss:g} MiB: " + "; ".join(over), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
