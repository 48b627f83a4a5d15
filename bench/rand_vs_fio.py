#!/usr/bin/python3
"""storscope's `rand` beside fio's randread/randwrite, alternated rounds.

  rand_vs_fio.py TARGET_DIR [--bin B] [--rounds N] [--direct] [--raw IMG]

For each round (storscope first in even rounds, fio first in odd ones):
storscope `run --tests rand` (16 MiB file, 256 requests a
run, 3 runs: 768 requests a point) then fio with the same file size, block
size, engine (psync), depth 1, direct flag and request count, on the same
filesystem (or, with --raw, the same image file: raw:IMG for storscope,
--filename=IMG for fio), then the same requests timed from Python around
the system call alone (a third clock, with no benchmark tool's overhead).
Compared: per-call latency p50 (fio's clat) at 4 KiB and 64 KiB, read and
write; medians over the rounds. Prints a Markdown table. IOPS are not
compared: fio's divide 768 requests by a runtime that includes its
start-up.
"""
import argparse
import json
import mmap
import os
import random
import statistics
import subprocess
import tempfile
import time

SIZE = 16 << 20
REQUESTS = 768  # storscope: 256 a run x 3 runs
BLOCKS = (4096, 65536)


def sh(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def storscope(args):
    target = ("raw:" + args.raw) if args.raw else "posix:" + args.dir + (",direct=1" if args.direct else "")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        extra = ["--allow-destructive"] if args.raw else []
        sh([args.bin, "run", "-q", "-t", target, "--tests", "rand", "--size", "16M",
            "-o", out.name, *extra])
        doc = json.load(open(out.name))
    got = {}
    for p in doc["tests"][0]["points"]:
        bs = p["params"]["block_bytes"]
        if bs in BLOCKS and "skipped" not in p:
            op = "read" if p["name"] == "randread" else "write"
            lat = p["latency"][op]
            got[(op, bs)] = (lat["percentiles_ns"]["50"], 1e9 / lat["mean_ns"])
    return got


def fio(args, op, bs):
    path = args.raw or os.path.join(args.dir, "fio.dat")
    cmd = ["fio", "--output-format=json", "--name=r", "--filename=" + path,
           "--rw=rand" + op, "--bs=%d" % bs, "--size=%d" % SIZE, "--ioengine=psync",
           "--iodepth=1", "--direct=%d" % (1 if args.direct else 0),
           "--number_ios=%d" % min(REQUESTS, 3 * (SIZE // bs)), "--randrepeat=1"]
    if op == "write":
        # storscope's rand writes a file it wrote first (its reads need the
        # data); fio would lay a new file out with fallocate and every timed
        # write would convert an unwritten extent: like with like
        cmd.append("--overwrite=1")
    if args.fio_thread:
        cmd.append("--thread")
    j = json.loads(sh(cmd))["jobs"][0][op]
    if not args.raw:
        os.unlink(path)
    return j["clat_ns"]["percentile"]["50.000000"], j["iops"]


def plain(args, op, bs):
    """A third clock: the same requests from Python (os.preadv/pwritev, one
    at a time, O_DIRECT when asked), timed around the call alone."""
    path = args.raw or os.path.join(args.dir, "plain.dat")
    if not args.raw:
        with open(path, "wb") as f:
            f.write(os.urandom(SIZE))
            os.fsync(f.fileno())
    flags = (os.O_RDONLY if op == "read" else os.O_WRONLY) | (os.O_DIRECT if args.direct else 0)
    fd = os.open(path, flags)
    buf = mmap.mmap(-1, bs)
    buf.write(os.urandom(bs))
    blocks = list(range(SIZE // bs))
    random.Random(1).shuffle(blocks)
    lat = []
    call = os.preadv if op == "read" else os.pwritev
    for b in (blocks * 3)[:min(REQUESTS, 3 * len(blocks))]:
        t0 = time.perf_counter_ns()
        call(fd, [buf], b * bs)
        lat.append(time.perf_counter_ns() - t0)
    os.close(fd)
    if not args.raw:
        os.unlink(path)
    return statistics.median(lat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--bin", default="build/release/storscope")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--direct", action="store_true")
    ap.add_argument("--raw")
    ap.add_argument("--fio-thread", action="store_true",
                    help="fio --thread: its job as a thread of one process, as storscope runs")
    args = ap.parse_args()
    s_p50, f_p50, p_p50 = {}, {}, {}
    def run_storscope():
        for k, (p50, _) in storscope(args).items():
            s_p50.setdefault(k, []).append(p50)

    def run_fio():
        for op in ("read", "write"):
            for bs in BLOCKS:
                p50, _ = fio(args, op, bs)
                f_p50.setdefault((op, bs), []).append(p50)
                p_p50.setdefault((op, bs), []).append(plain(args, op, bs))

    for r in range(args.rounds):
        # alternated: a drift of the machine over a round (another guest,
        # the host's cache) weighs on both tools alike
        for step in ((run_storscope, run_fio) if r % 2 == 0 else (run_fio, run_storscope)):
            step()
    where = ("raw image " + args.raw) if args.raw else args.dir + (" direct=1" if args.direct else "")
    where += ", fio --thread" if args.fio_thread else ""
    # this VM's rounds are bimodal (a round runs at the machine's pace or
    # ~1.4x slower, whichever tool it is): the median of the rounds can land
    # in either mode, so the fastest round of each is shown beside it, and
    # the median of each round's own ratio (its two runs are adjacent)
    print("| %s | storscope p50 | fio clat p50 | storscope / fio | Python p50 | storscope / Python "
          "| fastest rounds, storscope / fio | round by round, storscope / fio |" % where)
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for k in sorted(s_p50):
        sp, fp = statistics.median(s_p50[k]), statistics.median(f_p50[k])
        pp = statistics.median(p_p50[k])
        print("| rand%s %d KiB | %.1f us | %.1f us | %.2f | %.1f us | %.2f | %.2f | %.2f |" % (
            k[0], k[1] // 1024, sp / 1e3, fp / 1e3, sp / fp, pp / 1e3, sp / pp,
            min(s_p50[k]) / min(f_p50[k]), statistics.median(
                a / b for a, b in zip(s_p50[k], f_p50[k]))))


if __name__ == "__main__":
    main()
