#!/usr/bin/python3
"""Every workload at scale quick, with --verify, on a simulated medium under
a third-party filesystem: each test is ok (or says why it does not apply),
and the JSON says which filesystem and configuration ran.

usage: test_workloads.py STORSCOPE FS TARGET"""
import json
import os
import subprocess
import sys
import tempfile

binary, fs, target = sys.argv[1:4]
out = os.path.join(tempfile.mkdtemp(prefix="storscope-3p-"), "r.json")
r = subprocess.run([binary, "run", "-q", "-t", target, "--suite", "all", "--verify",
                    "--runs", "1", "-o", out], capture_output=True, text=True, timeout=900)
doc = json.load(open(out))
bad = []
assert doc["environment"]["filesystem"] == fs, doc["environment"]
assert any(k.startswith(fs + "_") for k in doc["environment"]), doc["environment"]
for t in doc["tests"]:
    if t["status"] == "not_applicable":
        print(f"{t['id']}: not applicable: {t['error']}")
    elif t["status"] != "ok":
        bad.append((t["id"], t["status"], t["error"]))
    else:
        print(f"{t['id']}: ok, {len(t['points'])} points")
if bad or r.returncode:
    print("FAILED:", bad, r.stderr)
    sys.exit(1)
print(f"{fs}: every workload ran")
