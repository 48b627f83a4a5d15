#!/usr/bin/python3
"""Fault sweep (issue 13): for every workload of suite `all` on each target,
count the filesystem operations N of a clean quick run (fail_at=0), then
rerun with the k-th operation failing, for every k in 1..N or a seeded
sample of k where N is large. Each rerun must end within a bound
proportional to the clean run, exit 1 (never crash, never 0), name the
failed operation and file in the test's error, keep valid JSON that ends the
run, and leave no scratch file behind.

    fault_sweep.py BIN [--samples K] [--seed S] [--jobs N] [--targets SPEC,...] [--tests ID,...]

CI runs a small sample (ctest fault-sweep); the full form is
    fault_sweep.py build/release/storscope --samples 0     (every k)

--power-cut sweeps device commands instead: N is the clean run's device
commands (dev_fail_at=0), and rerun k cuts the simulated power at command k
(cut_after=k). Besides the above, where a store is present (+sensorlog) the
run must then mount it again and find every byte synced before the cut
("holds every synced byte"; a loss is a problem, whatever else passed).
    fault_sweep.py BIN --power-cut [--targets sim:nor-spi+sensorlog,...]
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

NAMED = re.compile(r"^(\w+: )?(open|create|close|read|write|seek|sync|remove|unlink|mkdir|"
                   r"rmdir|stat|statvfs|advise|allocate|open_close|delete) \S+: ")
TESTS = ["B0", "B1", "B2", "M1", "S1", "S2", "M2", "L1", "fsync", "seq", "nb", "rand"]


def with_opt(spec, opt):
    """spec with a device option: sim:DEV,...,opt+FS, or spec,opt."""
    dev, plus, fs = spec.partition("+")
    return f"{dev},{opt}{plus}{fs}"


RUNNING = set()  # the storscope runs under way, stopped with the sweep
STOPPING = []  # not empty once the sweep was told to stop: no run starts


def run(bin_, spec, test, out, timeout):
    if STOPPING:
        raise SystemExit("stopped")
    t0 = time.time()
    with subprocess.Popen([bin_, "run", "-q", "-t", spec, "--tests", test, "-o", out, "-d",
                           "500ms"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as p:
        RUNNING.add(p)
        try:
            stdout, stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise
        finally:
            RUNNING.discard(p)
    return subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr), time.time() - t0


def stop(signum, _frame):
    """SIGTERM or SIGHUP (a ctest timeout, a closed terminal): each run is
    told to stop (storscope removes its scratch files on SIGTERM), then the
    sweep's own directory goes in main's `finally`, as on Ctrl-C."""
    STOPPING.append(signum)
    for p in list(RUNNING):
        p.terminate()
    raise SystemExit(128 + signum)


def sweep_one(a, target, test, work):
    """One workload on one target: returns (log line or None, reruns, problems)."""
    # a sample of its own per workload: the same k whatever runs beside it
    rng = random.Random(f"{a.seed}/{target}/{test}")
    out = os.path.join(work, "out.json")
    problems, reruns = [], 0
    scratch = None
    spec = target
    if target == "posix:":
        scratch = os.path.join(work, "t")
        os.makedirs(scratch, exist_ok=True)
        spec = "posix:" + scratch
    try:
        r, clean_s = run(a.bin, with_opt(spec, "dev_fail_at=0" if a.power_cut else "fail_at=0"),
                         test, out, a.clean_timeout)
    except subprocess.TimeoutExpired:
        # not a failure path: the workload is too slow on this stack to sweep
        # (rand's random writes on littlefs rewrite the file's tail each time)
        return f"{target} {test}: not swept: its clean run took over {a.clean_timeout} s", 0, []
    m = re.search(r"(\d+) (?:operations|device commands) counted", r.stderr)
    if r.returncode != 0 or not m:
        return None, 0, []  # not applicable here, or no operations: nothing to sweep
    with open(out) as f:
        if json.load(f)["tests"][0]["status"] != "ok":
            return None, 0, []
    n = int(m.group(1))
    # a cut after command k: k = 1 .. N - 1 (cut_after=0 means no cut, and
    # one after the last command cuts nothing)
    lo, hi = 1, n - 1 if a.power_cut else n
    ks = list(range(lo, hi + 1))
    if a.samples and hi - lo + 1 > a.samples:
        ks = sorted(set([lo, hi] + rng.sample(range(lo + 1, hi), a.samples - 2)))
    for k in ks:
        reruns += 1
        if os.path.exists(out):
            os.unlink(out)
        opt = f"cut_after={k}" if a.power_cut else f"fail_at={k}"
        what = f"{target} {test} {opt}"
        try:
            r, _ = run(a.bin, with_opt(spec, opt), test, out, 60 + 20 * clean_s)
        except subprocess.TimeoutExpired:
            problems.append(f"{what}: did not end within {60 + 20 * clean_s:.0f} s")
            continue
        if r.returncode == 0 and " 0 failed" in r.stderr:
            continue  # a time-based run on real time ended before operation k
        if r.returncode == 0 and a.power_cut and "holds every synced byte" in r.stderr:
            continue  # the cut came after the test's last operation: nothing to fail
        if r.returncode != 1:
            problems.append(f"{what}: exit {r.returncode}: {r.stderr.strip()[-200:]}")
            continue
        if (a.power_cut and re.search(r"formatting the log failed|cannot format this medium", r.stderr)
                and not os.path.exists(out)):
            continue  # cut while the target was set up: refused before any run, no results
        try:
            with open(out) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{what}: results not valid JSON: {e}")
            continue
        t = doc["tests"][0]
        if a.power_cut and "+sensorlog" in target and "holds every synced byte" not in r.stderr:
            problems.append(f"{what}: after the cut: {r.stderr.strip()[-300:]}")
        if doc.get("status") != "failed" or t.get("status") != "failed":
            problems.append(f"{what}: status {doc.get('status')}/{t.get('status')}")
        elif not NAMED.search(t.get("error") or ""):
            problems.append(f"{what}: error names no operation and file: {t.get('error')!r}")
        if scratch and os.listdir(scratch):
            problems.append(f"{what}: left {os.listdir(scratch)}")
            shutil.rmtree(scratch)
            os.makedirs(scratch)
    unit = "device commands" if a.power_cut else "operations"
    return f"{target} {test}: {n} {unit}, {len(ks)} reruns", reruns, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--samples", type=int, default=6, help="k per workload; 0 = every k")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="workloads swept side by side (each in its own directory)")
    ap.add_argument("--targets", default="sim:emmc-stm32u5,sim:emmc-stm32u5+sensorlog,null:,posix:")
    ap.add_argument("--tests", default=",".join(TESTS))
    ap.add_argument("--clean-timeout", type=int, default=600,
                    help="seconds a clean run may take; slower workloads are named and not swept")
    ap.add_argument("--power-cut", action="store_true",
                    help="cut the simulated power at device command k instead")
    a = ap.parse_args()
    if a.power_cut and a.targets == ap.get_default("targets"):
        a.targets = "sim:emmc-stm32u5+sensorlog,sim:nor-spi+sensorlog,sim:emmc-stm32u5"
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    work = tempfile.mkdtemp(prefix="storscope-sweep-")
    # targets are separated by commas, but a target's options are too: a
    # new target starts where a kind (`sim:`, `null:`, `posix:`...) does
    targets = re.split(r",(?=[a-z]+:)", a.targets)
    jobs = [(t, w) for t in targets for w in a.tests.split(",")]
    problems, reruns = [], 0
    pool = concurrent.futures.ThreadPoolExecutor(max(1, a.jobs))
    try:
        with pool:
            futures = []
            for i, (target, test) in enumerate(jobs):
                d = os.path.join(work, str(i))
                os.makedirs(d)
                futures.append(pool.submit(sweep_one, a, target, test, d))
            for f in futures:  # in the order given, whatever finished first
                line, n, p = f.result()
                if line:
                    print(line, flush=True)
                reruns += n
                problems += p
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # (the runs stopped: no more start)
        shutil.rmtree(work, ignore_errors=True)
    print(f"{reruns} reruns, {len(problems)} problems")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
