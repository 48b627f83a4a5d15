#!/usr/bin/python3
"""storscope beside fio, alternated, on the same machine in one run.

  fio_compare.py overhead  [--bin B] [--rounds N] [--duration S]
      storscope on null: (fsync test: seek+write+fsync through the method
      tables, per-op latency recorded) against fio --ioengine=null
      randwrite 4k; both pinned to CPU 0. Timed operations per second.

  fio_compare.py fsync DIR [--bin B] [--rounds N] [--duration S] [--size SIZE]
                            [--fio-arg ARG]...
      the fsync workload against fio --rw=randwrite --bs=4k --fsync=1
      --ioengine=sync on the same directory, file size and duration;
      --fio-arg adds an option to fio's command (printed), e.g.
      --fio-arg=--norandommap: offsets drawn as storscope draws them.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile


def sh(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def storscope(args, binary, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        sh(["taskset", "-c", "0", binary, "run", "-q", "-o", out.name, *extra] if args.pin
           else [binary, "run", "-q", "-o", out.name, *extra])
        doc = json.load(open(out.name))
    t = doc["tests"][0]
    p = t["points"][0]
    lat = p["latency"]
    return {
        "iops": t["iops"],
        # write+flush as one operation: only its mean compares with fio's,
        # whose write and sync are timed apart (means add, percentiles do not)
        "layout": p["params"].get("layout", "written"),
        "op_mean": lat["write+flush"]["mean_ns"],
        "op_p50": lat["write+flush"]["percentiles_ns"]["50"],  # storscope's own figures
        "op_p99": lat["write+flush"]["percentiles_ns"]["99"],  # (overhead table only)
        "sync_p50": lat["flush"]["percentiles_ns"]["50"],
        "sync_p99": lat["flush"]["percentiles_ns"]["99"],
        "sync_max": lat["flush"]["max_ns"],
    }


def fio(args, extra):
    cmd = ["fio", "--output-format=json", "--name=cmp", *extra]
    if args.pin:
        cmd = ["taskset", "-c", "0", *cmd]
    j = json.loads(sh(cmd))["jobs"][0]
    w, s = j["write"], j.get("sync", {})
    r = {"iops": w["iops"]}
    if s.get("total_ios"):
        sl, wl = s["lat_ns"], w["clat_ns"]  # sync engine: no submission latency
        r.update({
            # a mean of sums is the sum of the means; no such rule holds for
            # percentiles, so the op is compared by its mean only
            "op_mean": wl["mean"] + sl["mean"],
            "sync_p50": sl["percentile"]["50.000000"],
            "sync_p99": sl["percentile"]["99.000000"],
            "sync_max": sl["max"],
        })
    return r


def table(rows, keys):
    print(f"{'round':>5} {'tool':>9} " + " ".join(f"{k:>12}" for k in keys))
    for i, tool, r in rows:
        print(f"{i:>5} {tool:>9} " + " ".join(f"{r.get(k, float('nan')):>12.0f}" for k in keys))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["overhead", "fsync"])
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__),
                                                  "../build/release/storscope"))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--duration", type=int, default=None, help="seconds")
    ap.add_argument("--size", default="256M")
    ap.add_argument("--layout", choices=["allocated", "written"], default="allocated",
                    help="allocated: both tools' defaults (fio --overwrite=0 fallocates the "
                         "file, storscope likewise); written: storscope --overwrite against "
                         "fio --overwrite=1, the file written in full before timing")
    ap.add_argument("--fio-arg", action="append", default=[],
                    help="one more option for fio (fsync mode), repeatable")
    args = ap.parse_args()
    rows, ours, theirs = [], [], []
    if args.mode == "overhead":
        args.pin = True
        d = args.duration or 3
        for i in range(args.rounds):
            a = storscope(args, args.bin, ["-t", "null:", "--tests", "fsync", "--duration", f"{d}s"])
            b = fio(args, ["--ioengine=null", "--rw=randwrite", "--bs=4k", "--size=100G",
                           "--time_based", f"--runtime={d}"])
            rows += [(i, "storscope", a), (i, "fio", b)]
            ours.append(a["iops"]); theirs.append(b["iops"])
        table(rows, ["iops", "op_p50", "op_p99"])
        print(f"median ops/s: storscope {statistics.median(ours):.0f}, fio {statistics.median(theirs):.0f}, "
              f"ratio {statistics.median(ours) / statistics.median(theirs):.2f}")
        return
    if not args.dir:
        ap.error("fsync needs a directory")
    args.pin = False
    d = args.duration or 10
    work = tempfile.mkdtemp(prefix="fio-cmp-", dir=args.dir)
    if args.fio_arg:
        print("fio also given: " + " ".join(args.fio_arg))
    # a kill (SIGTERM) ends through the finally below, as Ctrl-C does: the
    # scratch directory left behind was found after stopping a run
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for i in range(args.rounds):
            def ours_once():
                extra = ["--overwrite"] if args.layout == "written" else []
                r = storscope(args, args.bin, ["-t", "posix:" + work, "--tests", "fsync",
                                               "--duration", f"{d}s", "--size", args.size,
                                               *extra])
                assert r["layout"] == args.layout, r["layout"]
                return r

            def fio_once():
                r = fio(args, [f"--filename={work}/fio.dat", f"--size={args.size}",
                               "--rw=randwrite", "--bs=4k", "--fsync=1", "--ioengine=sync",
                               "--time_based", f"--runtime={d}",
                               f"--overwrite={1 if args.layout == 'written' else 0}",
                               *args.fio_arg])
                os.unlink(f"{work}/fio.dat")
                return r
            # alternate who goes first: the second run inherits a warmer device
            if i % 2 == 0:
                a = ours_once()
                b = fio_once()
            else:
                b = fio_once()
                a = ours_once()
            rows += [(i, "storscope", a), (i, "fio", b)]
        table(rows, ["iops", "op_mean", "sync_p50", "sync_p99", "sync_max"])
        for what, key in (("IOPS", "iops"), ("fsync p50 (ns)", "sync_p50"),
                          ("fsync p99 (ns)", "sync_p99")):
            mo = statistics.median(r[key] for _, tool, r in rows if tool == "storscope")
            mt = statistics.median(r[key] for _, tool, r in rows if tool == "fio")
            # round by round: a round's two runs are back to back, rounds
            # are minutes apart, and this VM's pace moves between rounds by
            # more than the tools differ; the median of the rounds' own
            # ratios takes that drift out
            paired = statistics.median(
                a[key] / b[key] for (i, ta, a), (j, tb, b) in zip(rows[0::2], rows[1::2]))
            print(f"median {what}: storscope {mo:.0f}, fio {mt:.0f}, difference {100 * (mo - mt) / mt:+.1f} %"
                  f"; round by round {100 * (paired - 1):+.1f} %")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
