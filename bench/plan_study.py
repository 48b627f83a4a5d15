#!/usr/bin/env python3
"""The study's streams planned on the study's medium, beside its section 6.2
guidelines (issue 47's first "done when"). Runs

    storscope plan --streams imu:1000Hz:12B,ppg:100Hz:24B,env:1Hz:64B \\
                   --medium sim:emmc-stm32u5 --ram 16K -o plan.json

measures its CPU, runs the recommended configuration's own command again
and compares its figures, and prints the bench/README section: the
recommendation, the front, each store's best, and each 6.2 guideline with
what the plan decided - every sentence about a figure is computed from the
plan's JSON here.

    python3 bench/plan_study.py BIN [--ram 16K] [--medium sim:emmc-stm32u5] [--plan plan.json]

--plan reads a plan already made (no CPU figure then).
"""
import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile

STREAMS = "imu:1000Hz:12B,ppg:100Hz:24B,env:1Hz:64B"  # L1's default: the study's


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def size(b):
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k:
            return "%.1f %s" % (b / k, unit) if b % k else "%d %s" % (b // k, unit)
    return "%d B" % b


def ms(ns):
    return "%.2f ms" % (ns / 1e6)


def describe(c):
    return "%s, %s writer, %s buffer, sync every %s" % (
        c["store"], c["writer"], size(c["buffer_bytes"]), ms(c["sync_interval_ns"]))


def again(binary, c, work):
    """The configuration's command run again: its L1 point's figures."""
    words = shlex.split(c["command"])
    out = os.path.join(work, "again.json")
    p = subprocess.run([binary] + words[1:-1] + [out], capture_output=True, text=True)
    if p.returncode:
        sys.exit("the recommended configuration's command failed: " + p.stderr)
    d = json.load(open(out))
    pt = next(p for p in d["tests"][0]["points"] if p["params"]["mode"] == c["writer"])
    m = pt["metrics"]
    return {"records_lost": m["records_lost"], "records_produced": m["records_produced"],
            "worst_stall_ns": m["worst_stall_ns"], "backlog_peak_bytes": m["required_buffer_bytes"],
            "at_risk_bytes": m["at_risk_peak_bytes"]}


def day(c):
    """What the configuration's run alone for longer found."""
    d = c.get("day")
    if not d:
        return "not run"
    if not d["ran"]:
        return "did not finish: " + d.get("error", "")
    h = d["worst_hour"]
    return "%s over %.0f h, worst stall %s; worst hour %d: %d lost, %s" % (
        "lossless" if d["lossless"] else "%d lost or late" % (d["records_lost"] + d["records_late"]),
        d["duration_ns"] / 3.6e12, ms(d["worst_stall_ns"]), h["index"], h["records_lost"],
        ms(h["worst_stall_ns"]))


def cuts(c):
    """What the power cuts in the configuration's run found (docs/plan.md)."""
    held = c.get("power_cuts_held")
    if held is None:
        return "not checked (%s)" % ("bare extents: no store to mount"
                                     if c["store"].startswith("bare") else "not cut")
    made = [x for x in c.get("power_cuts", []) if x["cut"]]
    took = max((x["at_risk_bytes"] for x in made), default=0)
    return ("%d cuts: every synced byte back, at most %s taken" % (len(made), size(took))
            if held else "%d cuts: SYNCED DATA LOST" % len(made))


def best(cfgs, pred):
    fit = [c for c in cfgs if c["fits"] and pred(c)]
    return min(fit, key=lambda c: c["rank"]) if fit else None


def guidelines(doc):
    """Each 6.2 guideline the plan can speak to: (guideline, the plan, agrees)."""
    cfgs, rec = doc["configurations"], doc["configurations"][doc["recommended"] - 1]
    rows = []
    # Task architecture: a dedicated I/O task
    by_writer = {w: best(cfgs, lambda c, w=w: c["writer"] == w) for w in ("iotask", "direct", "mutex")}
    said = "; ".join("%s: %s" % (w, ms(c["worst_stall_ns"]) if c else "none fits")
                     for w, c in by_writer.items())
    lean = [c for c in cfgs if c["front"] and c["writer"] != "iotask" and
            c["ram_bytes"] < rec["ram_bytes"]]
    also = ("; on the front too: the %s writer with %s of RAM, at a worst stall of %s"
            % (lean[0]["writer"], size(lean[0]["ram_bytes"]), ms(lean[0]["worst_stall_ns"]))
            if lean else "")
    rows.append(("Task architecture: a dedicated I/O task owns the storage",
                 "recommends the %s writer; the best fitting configuration of each writer "
                 "stalls at worst %s%s" % (rec["writer"], said, also),
                 ("agrees on latency; on RAM, writing directly does with less" if lean
                  else "agrees") if rec["writer"] == "iotask" else "differs"))
    # Buffering: producer-consumer ring in RAM
    rows.append(("Buffering: a ring buffer between the sensors and a storage task",
                 "a buffer of %s, %s of it used at the peak, within the %s the spec gives"
                 % (size(rec["buffer_bytes"]), size(rec["backlog_peak_bytes"]),
                    size(doc["spec"]["ram_bytes"])),
                 "agrees" if rec["writer"] == "iotask" else "differs"))
    # Block size: 512-aligned, 4 KiB or more
    rows.append(("Block size: 512 B-aligned, 4 KiB or more for sequential writes",
                 "not a dimension of the plan yet: its I/O task writes 4 KiB chunks, "
                 "padded at each sync (L1)", "not decided"))
    # Circular logging
    logs = [c for c in cfgs if c["store"].startswith("sensorlog")]
    lossless = [c for c in logs if c["lossless"]]
    need = min((c["ram_bytes"] for c in lossless), default=None)
    if best(cfgs, lambda c: c["store"].startswith("sensorlog")):
        text, verdict = "a circular log (sensorlog) fits", "agrees"
    elif need is not None:
        text = ("sensorlog, a circular log, is lossless but needs %s of RAM at the least, over "
                "the %s given (two chunk buffers of the medium's page); the plan picks bare "
                "extents" % (size(need), size(doc["spec"]["ram_bytes"])))
        verdict = "differs: RAM"
    else:
        text, verdict = "no sensorlog configuration is lossless", "differs"
    rows.append(("Capacity management: circular logging that overwrites the oldest data",
                 text, verdict))
    rows.append(("Capacity management: keep 40-50 % free",
                 "not a dimension yet: the plan logs onto an empty medium (issue 47's fill "
                 "level over life is still to come)", "not decided"))
    rows.append(("File management: few files, handles kept open, files made in advance",
                 "one file a stream, opened once, by construction of L1", "agrees by construction"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin")
    ap.add_argument("--ram", default="16K")
    ap.add_argument("--medium", default="sim:emmc-stm32u5")
    ap.add_argument("--plan", help="a plan.json already made")
    a = ap.parse_args()
    if not (os.path.isfile(a.bin) and os.access(a.bin, os.X_OK)):
        ap.error("%s is not an executable storscope binary" % a.bin)
    if a.plan:
        try:
            with open(a.plan) as f:
                if "configurations" not in json.load(f):
                    raise ValueError("no configurations")
        except (OSError, ValueError) as e:
            ap.error("--plan %s is not a storscope plan: %s" % (a.plan, e))
    with tempfile.TemporaryDirectory() as work:
        cpu = None
        path = a.plan
        cmd = ["storscope", "plan", "--streams", STREAMS, "--medium", a.medium, "--ram", a.ram,
               "-o", "plan.json"]
        if not path:
            path = os.path.join(work, "plan.json")
            before = cpu_children()
            p = subprocess.run([a.bin] + cmd[1:-1] + [path], capture_output=True, text=True)
            cpu = cpu_children() - before
            if p.returncode not in (0, 1):
                sys.exit("plan failed: " + p.stderr)
        doc = json.load(open(path))
        cfgs = doc["configurations"]
        rec = cfgs[doc["recommended"] - 1]
        measured = again(a.bin, rec, work)
    same = all(measured[k] == rec[k] for k in measured)
    print("    " + " ".join(shlex.quote(w) for w in cmd))
    print()
    print("%d runs, %d configurations%s; recommended: **%s**." % (
        doc["runs"], len(cfgs), ", %.0f s of CPU" % cpu if cpu is not None else "",
        describe(rec)))
    print("%d of %d records lost, RAM %s (buffer peak %s), worst stall %s, a power cut takes "
          "at most %s (power cuts: %s), the first block worn in %.1f years; alone for longer: "
          "%s. Its command run again gives %s (records lost %d, produced %d, worst stall %s, "
          "buffer peak %s, at risk %s)." % (
              rec["records_lost"], rec["records_produced"], size(rec["ram_bytes"]),
              size(rec["backlog_peak_bytes"]), ms(rec["worst_stall_ns"]),
              size(rec["at_risk_bytes"]), cuts(rec), rec["lifetime_years"], day(rec),
              "the same figures" if same else "DIFFERENT figures", measured["records_lost"],
              measured["records_produced"], ms(measured["worst_stall_ns"]),
              size(measured["backlog_peak_bytes"]), size(measured["at_risk_bytes"])))
    print()
    print("The front (fitting configurations no other beats in RAM, worst stall and data at risk):")
    print()
    print("| rank | configuration | RAM | worst stall | at risk | power cuts | alone for longer | lasts |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in cfgs:
        if c["front"]:
            print("| %d | %s | %s | %s | %s | %s | %s | %.1f y |" % (
                c["rank"], describe(c), size(c["ram_bytes"]), ms(c["worst_stall_ns"]),
                size(c["at_risk_bytes"]), cuts(c), day(c), c["lifetime_years"]))
    tried = [c for c in cfgs if "day" in c]
    dropped = [c for c in tried if not c["fits"] and c["records_lost"] == 0 and c["lossless"]]
    print()
    print("Run alone for longer: %d configurations of the front as it stood, round by round; "
          "%d of them lossless in the sweep and dropped by the longer run (records lost, or it "
          "did not finish)." % (len(tried), len(dropped)))
    print()
    print("| the study's 6.2 guideline | what the plan decided | |")
    print("| --- | --- | --- |")
    for g, text, verdict in guidelines(doc):
        print("| %s | %s | %s |" % (g, text, verdict))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
