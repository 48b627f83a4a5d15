#!/usr/bin/python3
"""What every CLI test module shares: the binary and the schema under test
(configure(), called by test_cli.py before the modules are imported), the
formatting the terminal uses, run(), the fixtures and the Base class.
The modules take it all with `from cli_base import *`."""
import csv
import io
import random
import json
import math
import os
import shlex
import re
import shutil
import signal
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import jsonschema

BIN = SCHEMA = None


def rate(bps):
    """A rate as the terminal shows it: binary units, three figures."""
    units = ["B/s", "KiB/s", "MiB/s", "GiB/s"]
    u = 0
    while u < 3 and bps >= 1024 * 0.995:
        bps /= 1024
        u += 1
    return ("%.0f" if bps >= 100 else "%.1f" if bps >= 10 else "%.2f") % bps + " " + units[u]


def dur(ns):
    """A duration as the terminal shows it."""
    if ns < 1e3:
        return "%.0f ns" % ns
    if ns < 1e6:
        return "%.1f us" % (ns / 1e3)
    if ns < 1e9:
        return "%.2f ms" % (ns / 1e6)
    return "%.2f s" % (ns / 1e9)


def run(*args, env=None, timeout=300, **kw):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, **kw)


def crc32c(data, crc=0):
    # CRC-32C, bit by bit: independent of the table-driven one in sensorlog
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def configure(argv):
    """The binary and schema from test_cli.py's arguments, taken off argv
    so unittest sees only its own."""
    global BIN, SCHEMA
    BIN = os.path.abspath(argv[1])
    with open(argv[2]) as f:
        SCHEMA = json.load(f)
    del argv[1:3]


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="storscope-cli-")
        self.target = "posix:" + os.path.join(self.dir, "t")
        os.mkdir(os.path.join(self.dir, "t"))
        self.out = os.path.join(self.dir, "out.json")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def loop_mount(self, name, size):
        """A fresh ext4 of `size` bytes loop-mounted at self.dir/name (root
        only: the test is skipped otherwise); the caller unmounts it."""
        if os.geteuid() != 0 or not shutil.which("mkfs.ext4"):
            self.skipTest("needs root and mkfs.ext4")
        img = os.path.join(self.dir, name + ".img")
        with open(img, "wb") as f:
            f.truncate(size)
        subprocess.run(["mkfs.ext4", "-q", "-F", img], check=True, capture_output=True)
        mnt = os.path.join(self.dir, name)
        os.mkdir(mnt)
        try:
            subprocess.run(["mount", "-o", "loop", img, mnt], check=True, capture_output=True)
        except (subprocess.CalledProcessError, OSError) as e:
            self.skipTest(f"cannot loop-mount here: {e}")
        return mnt

    def target_is_empty(self):
        return os.listdir(os.path.join(self.dir, "t")) == []

    def load(self, path=None):
        with open(path or self.out) as f:
            doc = json.load(f)
        jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)
        return doc
