#!/usr/bin/python3
"""Simulation speed: virtual seconds per wall second of the fsync profile on
every device profile, and simulated device operations per wall second.

  sim_speed.py [--bin build/release/storscope] [--duration 30]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

PROFILES = ["sd-consumer", "sd-a2", "emmc-stm32u5", "emmc-industrial", "ssd-sata-consumer",
            "ssd-sata-plp", "nvme-consumer", "nvme-plp", "ram"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__),
                                                  "../build/release/storscope"))
    ap.add_argument("--duration", type=float, default=30.0, help="virtual seconds")
    a = ap.parse_args()
    print(f"{'target':<36} {'virtual s':>9} {'wall s':>11} {'x real time':>12} "
          f"{'device ops':>11} {'ops/wall s':>12} {'IOPS':>9}")
    cases = [(f"sim:{p},capacity=1G,data=0", a.duration) for p in PROFILES if p != "ram"]
    # ram is so fast in virtual time that 30 s would be ~300 M operations
    cases += [("sim:ram,capacity=1G,data=0", 1.0), ("sim:ram,capacity=1G,data=1", 1.0)]
    for target, d in cases:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            subprocess.run([a.bin, "run", "-q", "-t", target, "--tests", "fsync",
                            "--duration", f"{d}s", "--size", "64M", "-o", out.name], check=True)
            t = json.load(open(out.name))["tests"][0]
        # the whole test, file lay-out included: virtual time against wall time
        virt, wall = t["elapsed_ns"] / 1e9, t["wall_elapsed_ns"] / 1e9
        dev = t["points"][0]["device"]
        ops = dev["reads"] + dev["programs"] + dev["flushes"] + dev["erases"] + dev["trims"]
        print(f"{target:<36} {virt:>9.1f} {wall:>11.4f} {virt / wall:>12.0f} {ops:>11} "
              f"{ops / wall:>12.0f} {t['iops']:>9.0f}")


if __name__ == "__main__":
    main()
