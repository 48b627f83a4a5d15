#!/usr/bin/env python3
"""Do storscope's guidelines hold under noise? (issue 41)

For each profile and each kind of noise the simulator can make (noise=,
stalls=, bimodal=, drift=), runs the same tests over N seeds and compares each
seed's guideline set with the noiseless one. A guideline is its claim
without its figures: "Write in chunks of at least 512 B, aligned to 512 B",
"Avoid writes of 128 KiB". Prints, per profile and noise, in how many seeds
the set equals the noiseless one, and how many seeds printed a guideline
the noiseless run does not (a verdict the noise made up).

    python3 bench/verdicts_noise.py build/release/storscope [--seeds 20]
        [--profiles emmc-stm32u5,sd-consumer,nand-slc+sensorlog] [--tests B0,B2,M1] [--runs N]
        [--noises noise=0.1,drift=0.2:20ms]

Every profile `storscope list devices` gives, as issue 41 asks (raw NAND
through sensorlog: bare extents cannot skip its bad blocks):

    --profiles emmc-stm32u5,sd-consumer,sd-a2,emmc-industrial,nor-spi,nand-slc+sensorlog,ssd-sata-consumer,ssd-sata-plp,nvme-consumer,nvme-plp,ram

The goal (issue 41): the set equals the noiseless one, or the differing
guideline is printed as unresolved ("held"), in at least 19 of 20 seeds.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

NOISES = ["noise=0.1", "noise=0.3", "stalls=2:20ms", "bimodal=0.05:10", "drift=0.2:20ms"]


# which detector a claim comes from, by how it begins: an unresolved finding
# names the same kind ("Unresolved within the noise (read buffer): ...")
KINDS = [("Write in chunks", "chunk size"), ("Buffer small records", "chunk size"),
         ("A read buffer", "read buffer"), ("Avoid writes", "sizes to avoid")]


def kind_of(claim):
    for prefix, kind in KINDS:
        if claim.lower().startswith(prefix.lower()):
            return kind
    return claim


def guideline_set(binary, target, tests, seed, out, runs, select=None):
    """The run's guideline claims, and the kinds it said were unresolved
    (select: what to run instead of --tests TESTS, e.g. ["--suite", "paper"])."""
    cmd = [binary, "run", "-q", "-t", target] + (select or ["--tests", tests]) + \
        ["--seed", str(seed), "-o", out]
    if runs:
        cmd += ["--runs", str(runs)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"{target} seed {seed}: {r.stderr.strip()}")
    return report_set(binary, out)


def report_set(binary, results):
    """The claims and unresolved kinds of `binary report RESULTS`."""
    rep = subprocess.run([binary, "report", results], capture_output=True, text=True).stdout
    unresolved = set(re.findall(r"Unresolved within the noise \(([^)]*)\)", rep))
    text = rep.split("Guidelines for this device", 1)[-1]
    claims = set()
    for line in text.splitlines():
        m = re.match(r"\s+\d+\. (.*)", line)
        if m:  # the claim, not its figures (what follows the first colon), nor the
            # layer it was measured through ("Through sensorlog (its files, ...): ")
            text = re.sub(r"^Through [^:]*\): ", "", m.group(1))
            claims.add(text.split(":")[0].strip())
    return frozenset(claims), unresolved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--profiles", default="emmc-stm32u5,sd-consumer,nor-spi")
    ap.add_argument("--tests", default="B0,B2,M1")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="seeds run side by side (each run is deterministic)")
    ap.add_argument("--runs", type=int, default=0,
                    help="repetitions per point (0: storscope's default for the target)")
    ap.add_argument("--noises", default=",".join(NOISES),
                    help="the noise options to try, comma-separated")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        print(f"tests {a.tests}, runs {a.runs or 'default'}, {a.seeds} seeds; same: the "
              "noiseless guideline set; held: the same, or each guideline that differs printed "
              "as unresolved; made up: a guideline the noiseless run does not print")
        worst = a.seeds
        for prof in a.profiles.split(","):
            quiet, _ = guideline_set(a.binary, "sim:" + prof, a.tests, 1, out, a.runs)
            print(f"\n{prof}: noiseless: " + ("; ".join(sorted(quiet)) or "(none)"))
            for noise in a.noises.split(","):
                same = held = made_up = 0
                dev, plus, fs = prof.partition("+")  # options go before +FS

                def one(seed):
                    return guideline_set(a.binary, f"sim:{dev},{noise}{plus}{fs}", a.tests,
                                         seed, os.path.join(d, f"r{seed}.json"), a.runs)
                with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
                    results = list(pool.map(one, range(1, a.seeds + 1)))
                for got, unres in results:
                    same += got == quiet
                    held += all(kind_of(c) in unres for c in got ^ quiet)
                    made_up += bool(got - quiet)
                worst = min(worst, held)
                print(f"  {noise:16} same in {same:2}/{a.seeds}, held in {held:2}/{a.seeds}, "
                      f"made up in {made_up:2}/{a.seeds}")
        print(f"\nworst: held in {worst}/{a.seeds} seeds (goal: {a.seeds - a.seeds // 20})")


if __name__ == "__main__":
    sys.exit(main())
