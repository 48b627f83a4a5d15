#!/usr/bin/env python3
"""Do storscope's guidelines repeat on this machine's real disks? (issue 41)

Runs the same quick run N times on each directory given and counts the
distinct guideline sets (each guideline's claim without its figures, and
the kinds said to be unresolved - bench/verdicts_noise.py's rule). The goal:
one set in N of N. As root, --xfs makes a 1 GiB XFS image, loop-mounts it
and adds it (removed after).

    python3 bench/verdicts_disks.py build/release/storscope [--runs-each 10]
        [--dirs /var/tmp] [--xfs] [--what "--tests B2" --what "--suite paper"]
        [--against OTHER_BINARY]

--against runs another build side by side, one run of each in turn, so
both see the same load (a comparison on an idle machine against a loaded
one says nothing).
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdicts_noise import guideline_set  # noqa: E402  (one rule for both benches)


def mounted_xfs(work):
    """A 1 GiB XFS image loop-mounted under work; its mount point."""
    if os.geteuid() != 0 or not shutil.which("mkfs.xfs"):
        raise SystemExit("--xfs needs root and xfsprogs (apt-get install xfsprogs)")
    img, mnt = os.path.join(work, "xfs.img"), os.path.join(work, "xfs")
    with open(img, "wb") as f:
        f.truncate(1 << 30)
    subprocess.run(["mkfs.xfs", "-q", img], check=True)
    os.mkdir(mnt)
    subprocess.run(["mount", "-o", "loop", img, mnt], check=True)
    return mnt


def set_text(claims, unresolved):
    parts = sorted(claims) + ["unresolved: " + k for k in sorted(unresolved)]
    return "; ".join(parts) if parts else "(no guideline, nothing unresolved)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--runs-each", type=int, default=10)
    ap.add_argument("--dirs", default="/var/tmp")
    ap.add_argument("--xfs", action="store_true")
    ap.add_argument("--what", action="append", default=None)
    ap.add_argument("--against", default=None, help="another binary, run in turn with it")
    a = ap.parse_args()
    binaries = [a.binary] + ([a.against] if a.against else [])
    whats = a.what or ["--tests B2", "--suite paper"]
    work = tempfile.mkdtemp(prefix="verdicts.")
    mnt = None
    try:
        dirs = [d for d in a.dirs.split(",") if d]
        if a.xfs:
            mnt = mounted_xfs(work)
            dirs.append(mnt)
        out = os.path.join(work, "r.json")
        for d in dirs:
            fs = subprocess.run(["stat", "-f", "-c", "%T", d], capture_output=True,
                                text=True).stdout.strip()
            for what in whats:
                sets = {b: collections.Counter() for b in binaries}
                for i in range(a.runs_each):
                    for b in binaries:
                        c, u = guideline_set(b, "posix:" + d, None, 1, out, 0,
                                             select=what.split())
                        sets[b][set_text(c, u)] += 1
                for b in binaries:
                    who = f" [{b}]" if a.against else ""
                    print(f"posix:{d} ({fs}) {what}{who}: {len(sets[b])} set(s) in "
                          f"{a.runs_each} runs")
                    for s, n in sets[b].most_common():
                        print(f"    {n:3d} x  {s}")
        return 0
    finally:
        if mnt:
            subprocess.run(["umount", mnt], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
