#!/usr/bin/env python3
"""storscope probe on every simulated profile, against the answers the model
was given: genuine, each counterfeit kind, and an open-AU limit on the
managed ones; then L1 with more streams than open AUs.

    python3 bench/probe_models.py build/release/storscope
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/storscope"
PROFILES = ["emmc-stm32u5", "sd-consumer", "sd-a2", "emmc-industrial", "nor-spi", "nand-slc",
            "ssd-sata-consumer", "ssd-sata-plp", "nvme-consumer", "nvme-plp", "ram"]


def profiles():
    out = subprocess.run([BIN, "list", "devices"], capture_output=True, text=True).stdout
    names = [l.split()[0] for l in out.splitlines() if l.strip() and not l.startswith(" ")]
    return [n for n in names if n in PROFILES] or PROFILES


def probe(spec):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "p.json")
        r = subprocess.run([BIN, "probe", spec, "--allow-destructive", "-o", out],
                           capture_output=True, text=True)
        if not os.path.exists(out):
            return None, r.stderr.strip()
        return json.load(open(out))["probe"], ""


def mib(b):
    if not b:
        return "unknown size"
    if b >= 2**20 and b % 2**20:
        return "%.1f MiB" % (b / 2**20)
    return "%g MiB" % (b / 2**20) if b % 2**20 == 0 else "%g KiB" % (b / 1024)


print("| target | given | read timing: page / unit found | capacity found | open AUs found | device time (s) |")
print("| --- | --- | --- | --- | --- | --- |")
for name in profiles():
    raw = name in ("nor-spi", "nand-slc")
    cap = "capacity=16M" if raw else "capacity=2G"
    cases = [("genuine", f"sim:{name},{cap}")]
    if not raw:
        cases += [("aliasing at 1 GiB", f"sim:{name},{cap},fake=1G"),
                  ("lost beyond 640 MiB", f"sim:{name},{cap},fake=640M,fake_lost=1")]
    if not raw and name != "ram":  # (merges on a RAM disk cost nothing)
        cases += [("3 open AUs of 4 MiB", f"sim:{name},{cap},au=4M,open_aus=3"),
                  ("6 open AUs of 1 MiB", f"sim:{name},{cap},au=1M,open_aus=6"),
                  ("reads across 16 KiB pages +100 us, 8 MiB units +200 us",
                   f"sim:{name},{cap},page_bytes=16K,au=8M,read_page_cross=100us,read_unit_cross=100us")]
    if name == "sd-consumer":  # issue 41.3's known answers: an AU under 512 KiB, a small fake
        cases += [("4 open AUs of 128 KiB", f"sim:{name},{cap},au=128K,open_aus=4"),
                  ("4 open AUs of 3 MiB (SD's AUs include 12 and 24 MiB: 3 x 2^k)",
                   f"sim:{name},{cap},au=3M,open_aus=4"),
                  ("reads across 3 MiB AUs +150 us, no open-AU limit (the read timing alone finds them)",
                   f"sim:{name},{cap},au=3M"),
                  ("reads across 12 MiB AUs +150 us, no open-AU limit",
                   f"sim:{name},{cap},au=12M"),
                  ("aliasing at 16 MiB (its 4 MiB unit beyond what 16 MiB lets reads reach)",
                   f"sim:{name},capacity=1G,fake=16M"),
                  # defect 7: a controller cache answering reads of recent writes
                  ("aliasing at 640 MiB behind a 1 MiB cache",
                   f"sim:{name},{cap},fake=640M,fake_cache=1M"),
                  ("lost beyond 640 MiB behind a 4 MiB cache",
                   f"sim:{name},{cap},fake=640M,fake_lost=1,fake_cache=4M"),
                  ("lost beyond 640 MiB behind a 16 MiB cache",
                   f"sim:{name},{cap},fake=640M,fake_lost=1,fake_cache=16M")]
    if name == "sd-a2":  # defect 3: only reads across a page cost more
        cases += [("reads across 16 KiB pages +100 us, nothing at its 4 MiB unit",
                   f"sim:{name},{cap},read_page_cross=100us")]
    for given, spec in cases:
        p, err = probe(spec)
        if p is None:
            print(f"| `{spec}` | {given} | refused: {err} | | | |")
            continue
        c, a, g = p["capacity"], p["open_aus"], p["read_timing"]
        if g["status"] != "ok":
            geo = g["status"]
        elif g["visible"]:
            geo = (f'{mib(g["page_bytes"]) if g["page_bytes"] else "-"} / '
                   f'{mib(g["unit_bytes"]) if g["unit_bytes"] else "not seen"}')
        else:
            geo = "none visible"
        found = c["kind"] if c["kind"] == "genuine" else f'{c["kind"]} at {mib(c["usable_bytes"])}'
        if c.get("cache_bytes"):
            found += f' (a cache of ~{mib(c["cache_bytes"])}, {mib(c["evict_bytes_written"])} rewritten to push it out)'
        elif "cache" in c:
            found += f' (a cache {c["cache"]})'
        if a["status"] != "ok":
            aus = a["status"]
        elif a["limited"]:
            aus = f'{a["open_aus"]} of {mib(a["au_bytes"])}'
        else:
            aus = f'none up to {a["streams_tried"]}'
        t = (g["device_ns"] + c["device_ns"] + a["device_ns"]) / 1e9
        print(f"| `{spec}` | {given} | {geo} | {found} | {aus} | {t:.1f} |")

print()
print("L1 (imu, ppg, env: three streams) on sd-consumer, 20 s, by open AUs:")
print()
print("| open_aus | direct: lost / late | mutex: lost / late | I/O task: lost / late |")
print("| --- | --- | --- | --- |")
for n in (0, 3, 2, 1):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "l1.json")
        subprocess.run([BIN, "run", "-q", "-t", f"sim:sd-consumer,capacity=2G,open_aus={n}",
                        "--tests", "L1", "--duration", "20s", "-o", out], check=False)
        doc = json.load(open(out))
        cells = {}
        for t in doc["tests"]:
            for pt in t["points"]:
                m = pt["metrics"]
                cells[pt["params"]["mode"]] = f'{m["records_lost"]} / {m["records_late"]}'
        print(f'| {n or "no limit"} | {cells.get("direct")} | {cells.get("mutex")} | {cells.get("iotask")} |')
