"""CLI tests: Each workload, on a directory and through sensorlog (run through test_cli.py)."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


class Workloads(Base):
    """S1, S2, M2, L1 and the paper suite on sensorlog: the long runs."""

    def test_a_small_size_is_said_as_it_is(self):
        t = "sim:emmc-stm32u5,capacity=256M"
        # fsync's 4 KiB writes need a 4 KiB file: a usage error before the run
        # (it was the test's failure, exit 1, after the tests before it ran)
        r = run("run", "-t", t, "--tests", "seq,fsync", "--size", "1K", "-o", self.out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--size 1K is too small for fsync", r.stderr)
        self.assertFalse(os.path.exists(self.out))
        # seq writes a 100 KiB file in one 100 KiB block: said so (it said
        # "at 1 MiB", its block size, for a file smaller than a block)
        r = run("run", "-t", t, "--tests", "seq,rand", "--size", "100K", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        seq, rnd = self.load()["tests"]
        self.assertEqual(seq["params"]["block_bytes"], 100 * 1024)
        for p in seq["points"]:
            if "block_bytes" in p["params"]:
                self.assertEqual(p["params"]["block_bytes"], 100 * 1024)
        self.assertRegex(r.stdout, r"seq +write [0-9.]+ [KMG]iB/s at 100 KiB;")
        # a file too small for every block rand reads: its line says only that
        # (it began with "; ")
        r = run("run", "-t", t, "--tests", "rand", "--size", "1", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"rand +randread not measured at 12 sizes")

    def test_s1_concurrent_load(self):
        r = run("run", "-q", "-t", self.target, "--tests", "S1", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "ok", t["error"])
        self.assertEqual(len(t["points"]), 3 * 2 * 4 * 5)
        for p in t["points"]:
            prm, m = p["params"], p["metrics"]
            # every mode moves exactly the bytes requested
            self.assertEqual(m["bytes_per_run"], prm["iterations"] * prm["chunk_bytes"])
            # the load tasks really ran
            if prm["load_tasks"]:
                self.assertGreater(m["load_iterations"], 0)
            else:
                self.assertEqual(m["load_iterations"], 0)
                self.assertEqual(m["degradation"], 0)
            if prm["mode"] == "iotask" and prm["op"] == "write":
                # the I/O task writes whole aligned 4 KiB chunks (all but a final tail)
                self.assertGreaterEqual(m["device_writes"] * 4096, m["bytes_per_run"])
                self.assertGreaterEqual(m["aligned_writes"], m["device_writes"] - 1)
        self.assertTrue(self.target_is_empty())
        r = run("run", "-q", "-t", "sim:emmc-stm32u5", "--tests", "S1", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "not_applicable")
        self.assertIn("clock=real", t["error"])

    def test_s2_metadata_bursts(self):
        r = run("run", "--tables", "-t", self.target, "--tests", "S2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "ok", t["error"])
        # open+close runs without O_CREAT and delete must find every file: both
        # would fail if create had not made them all
        self.assertEqual(len(t["points"]), 2 * 5 * 3)
        for layout in ("flat", "subdirs"):
            for op in ("create", "open_close", "delete"):
                self.assertIn(f"{op}_exponent_{layout}", t)
                self.assertGreater(t[f"{op}_exponent_{layout}_ci95"], 0)
        files = [p["params"]["files"] for p in t["points"] if p["name"] == "create"]
        self.assertEqual(files, [50, 100, 150, 200, 250] * 2)
        self.assertTrue(self.target_is_empty())
        self.assertIn("per-file open_close grows as N^", r.stdout)
        self.assertIn("[S2] open+close per file grows", r.stdout)
        r = run("run", "-q", "-t", "sim:emmc-stm32u5", "--tests", "S2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.load()["tests"][0]["status"], "not_applicable")

    def test_m2_needs_capacity_and_fills_only_a_set_aside_filesystem(self):
        r = run("run", "-q", "-t", self.target, "--tests", "M2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "not_applicable")
        self.assertIn("--capacity", t["error"])
        # this directory's filesystem is larger than 64 MiB: refused before
        # anything runs (issue 44: it exited 1 after the header), nothing
        # written, no results file
        os.remove(self.out)
        r = run("run", "-q", "-t", self.target, "--tests", "M2", "--capacity", "64M",
                "-o", self.out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("larger than --capacity 64 MiB", r.stderr)
        self.assertFalse(os.path.exists(self.out))
        self.assertTrue(self.target_is_empty())
        r = run("run", "-q", "-t", "sim:emmc-stm32u5", "--tests", "M2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.load()["tests"][0]["status"], "not_applicable")
        for bad in (["--floor", "0"], ["--floor", "100"], ["--capacity", "x"],
                    ["--interval", "0"], ["--latency-threshold", "soon"]):
            r = run("run", "-t", self.target, "--tests", "M2", *bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn(bad[0], r.stderr)

    def test_a_small_partition_is_usable(self):
        # issue 15.9: a fixed 64 MiB reserve refused every filesystem under
        # ~70 MiB, even for a 256 KiB test, with a hint (a smaller --size)
        # that could not help B0
        mnt = self.loop_mount("small", 32 << 20)
        try:
            r = run("run", "-q", "-t", "posix:" + mnt, "--tests", "B0", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.load()["tests"][0]["status"], "ok")
            st = os.statvfs(mnt)
            total, free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
            # what does not fit is refused naming the test and what would fit:
            # 5 % kept free, at least min(64 MiB, 10 %) = 3.2 MiB here
            reserve = max(total // 20, min(64 << 20, total // 10))
            r = run("run", "-q", "-t", "posix:" + mnt, "--tests", "B0,fsync", "--size", "40M")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("fsync needs 40 MiB", r.stderr)
            v = free - reserve  # shown as sizes are: one decimal, truncated (units.c)
            shown = "%d.%d MiB" % (v >> 20, (v % 2**20) * 10 >> 20) if v % 2**20 else "%d MiB" % (v >> 20)
            self.assertIn("at most %s can be used" % shown, r.stderr)
            self.assertEqual(os.listdir(mnt), ["lost+found"])
        finally:
            subprocess.run(["umount", mnt], capture_output=True)

    def test_m2_on_a_loop_mounted_filesystem(self):
        mnt = self.loop_mount("mnt", 48 << 20)
        try:
            st = os.statvfs(mnt)
            total, free0 = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
            r = run("run", "--tables", "-t", "posix:" + mnt, "--tests", "M2", "--capacity", "48M",
                    "--size", "512K", "--floor", "10", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            t = self.load()["tests"][0]
            self.assertEqual(t["status"], "ok", t["error"])
            pts = t["points"]
            cycle, floor = 3 * 512 * 1024, total // 1000 * 100
            # free space falls one lifecycle at a time and stops above the floor
            frees = [p["metrics"]["free_bytes"] for p in pts]
            self.assertEqual(t["lifecycles"], len(pts))
            self.assertGreater(len(pts), 10)
            self.assertTrue(all(a > b for a, b in zip(frees, frees[1:])))
            self.assertGreaterEqual(frees[-1] - cycle, floor)
            self.assertLess(frees[-1] - 2 * cycle, floor + cycle)
            for p in pts:
                for k in ("create_ns", "open_ns", "write_ns", "flush_ns", "close_ns"):
                    self.assertGreater(p["metrics"][k], 0)
            self.assertIn("create_exp_b_per_day", t)
            self.assertIn("create latency ~ A exp(B t)", r.stdout)
            # everything removed again
            self.assertEqual([e for e in os.listdir(mnt) if e != "lost+found"], [])
            self.assertGreaterEqual(os.statvfs(mnt).f_bavail * st.f_frsize, free0 - (1 << 20))
        finally:
            subprocess.run(["umount", mnt], check=True)

    def test_l1_bisect_never_contradicts_the_nominal_run(self):
        # after S2 and M2 have aged a NOR log, a rerun at the nominal rate can
        # go otherwise than the sustained run did: the bisect reran it and
        # reported iotask's highest lossless rate as 0.93x right under a
        # lossless run at 1.0x. The sustained run is now its first probe
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=64M+sensorlog", "-T", "B0,S2,M2,L1",
                "--bisect", "-o", self.out, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        l1 = next(t for t in self.load()["tests"] if t["id"] == "L1")
        for mode in ("direct", "mutex", "iotask"):
            with self.subTest(mode=mode):
                scale = l1[mode + "_max_lossless_scale"]
                if l1[mode + "_lossless"]:
                    self.assertGreaterEqual(scale, 1.0)
                else:
                    self.assertLess(scale, 1.0)

    def test_l1_sustained_logging(self):
        r = run("run", "--tables", "-t", self.target, "--tests", "L1", "--duration", "1s", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "ok", t["error"])
        pts = {p["params"]["mode"]: p for p in t["points"]}
        self.assertEqual(sorted(pts), ["direct", "iotask", "mutex"])
        for mode, p in pts.items():
            m = p["metrics"]
            # 1 s of imu 1 kHz, ppg 100 Hz, env 1 Hz
            self.assertEqual(m["records_produced"], 1000 + 100 + 1, mode)
            self.assertEqual(m["records_lost"], 0, mode)
            self.assertGreater(m["worst_stall_ns"], 0)
            self.assertEqual(p["latency"]["record_to_durable"]["count"], 1101)
        self.assertEqual(pts["direct"]["metrics"]["bytes_written"], 1000 * 12 + 100 * 24 + 64)
        self.assertEqual(pts["iotask"]["metrics"]["bytes_written"] % 4096, 0)
        self.assertTrue(self.target_is_empty())
        self.assertIn("buffer need", r.stdout)
        # in virtual time on a simulated card, with the search for the highest rate
        r = run("run", "-q", "-t", "sim:sd-consumer", "--tests", "L1", "--bisect",
                "--streams", "imu:1000x12", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertGreater(t["iotask_max_lossless_scale"], 4 * t["direct_max_lossless_scale"])
        best = [p for p in t["points"] if p["name"] == "max_lossless"]
        self.assertEqual(len(best), 3)
        self.assertTrue(all(p["metrics"]["lossless"] for p in best))
        os.unlink(self.out)
        for bad, msg in ((["--streams", "imu:0x12"], "1 .. 1000000 Hz"),
                         (["--streams", "imu"], "NAME:HZxBYTES")):
            r = run("run", "-q", "-t", "sim:sd-consumer", "--tests", "L1", *bad, "-o", self.out)
            self.assertEqual(r.returncode, 2, bad)  # before the run, not after it
            self.assertIn(msg, r.stderr)
            self.assertFalse(os.path.exists(self.out))
        for bad in (["--buffer", "12"], ["--deadline", "x"], ["--sync-every", "0"]):
            r = run("run", "-t", self.target, "--tests", "L1", *bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn(bad[0], r.stderr)

    def test_l1_with_real_tasks(self):
        # --tasks: a producer thread per stream, the writers on threads of
        # their own; every record of the schedule counted and made durable
        r = run("run", "-q", "-t", self.target, "--tests", "L1", "--tasks", "--duration", "1s",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "ok", t["error"])
        self.assertIs(t["params"]["tasks"], True)
        pts = {p["params"]["mode"]: p for p in t["points"]}
        self.assertEqual(sorted(pts), ["direct", "iotask", "mutex"])
        for mode, p in pts.items():
            self.assertEqual(p["metrics"]["records_produced"], 1101, mode)
            self.assertEqual(p["metrics"]["records_lost"], 0, mode)
            self.assertEqual(p["latency"]["record_to_durable"]["count"], 1101, mode)
        self.assertEqual(pts["direct"]["metrics"]["bytes_written"], 1000 * 12 + 100 * 24 + 64)
        self.assertEqual(pts["mutex"]["metrics"]["bytes_written"], 1000 * 12 + 100 * 24 + 64)
        self.assertTrue(self.target_is_empty())
        # virtual time cannot hold threads: not applicable, and why
        r = run("run", "-q", "-t", "sim:sd-consumer", "--tests", "L1", "--tasks", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "not_applicable")
        self.assertIn("clock=real", t["error"])
        os.unlink(self.out)
        r = run("run", "-q", "-t", "sim:sd-consumer", "--tests", "B0", "--tasks", "-o", self.out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--tasks is an L1 option", r.stderr)
        self.assertFalse(os.path.exists(self.out))


class WorkloadsOnSensorlog(Base):
    """The paper suite through sensorlog's facade: one thread, long; ASan
    and UBSan see it, TSan need not (ctest cli-sensorlog)."""

    def test_l1_on_nor_erases_ahead_in_idle_time(self):
        # the streams' gaps are a logger's idle time: sensorlog erases ahead
        # then (fs ops idle), in 2 ms slices on a NOR that suspends erases,
        # so a writer after the log wrapped waits for a slice, not an erase.
        # Before, L1's idle left the device at rest: the hour lost 128,395
        # records with unsliced erases and stalled 2.6 s with slices.
        base = "sim:nor-spi+sensorlog,files=4,buffer=512,erase_slice="
        res = {}
        for cut in ("0", "2ms"):
            r = run("run", "-q", "-t", base + cut, "--tests", "L1", "-d", "30m", "--buffer", "1K",
                    "--sync-every", "250ms", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = self.load()
            self.assertEqual(doc["environment"]["sensorlog_erase_slice_ns"],
                             0 if cut == "0" else 2000000)
            res[cut] = {p["params"]["mode"]: p for p in doc["tests"][0]["points"]}
        sliced, whole = res["2ms"]["direct"], res["0"]["direct"]
        self.assertGreater(sliced["device"]["blocks_erased"], 1000)  # the log went round
        self.assertEqual((sliced["metrics"]["records_lost"], sliced["metrics"]["records_late"]),
                         (0, 0))
        # virtual time: a slice and a chunk's program, not a 64 KiB erase
        self.assertLess(sliced["metrics"]["worst_stall_ns"], 20e6)
        self.assertGreater(whole["metrics"]["worst_stall_ns"], 10 * sliced["metrics"]["worst_stall_ns"])
        # erases that fail for good while the writer idles: the run fails
        # and names what failed
        r = run("run", "-q", "-t", "sim:nor-spi,dev_fail_at=300,dev_fail_from=1,dev_fail_op=erase"
                "+sensorlog,files=4,buffer=512,erase_slice=2ms", "--tests", "L1", "-d", "30m",
                "--buffer", "1K", "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(self.load()["tests"][0]["error"],
                         "erase ahead (idle time) on the store: I/O error")

    def test_paper_suite_on_sensorlog(self):
        r = run("run", "--tables", "-t", "sim:emmc-stm32u5+sensorlog", "--tests", "B0,B1,B2,M1,S2",
                "--verify", "--runs", "1", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load()
        self.assertEqual(doc["environment"]["filesystem"], "sensorlog")
        tests = {t["id"]: t for t in doc["tests"]}
        self.assertTrue(all(t["status"] == "ok" for t in tests.values()),
                        [(t["id"], t["error"]) for t in tests.values()])
        # B2 rewrites its file in place: those points say why they were not measured
        b2w = [p for p in tests["B2"]["points"] if p["name"] == "write"]
        self.assertTrue(b2w and all("append-only" in p["skipped"] for p in b2w))
        self.assertTrue(all("skipped" not in p for p in tests["B2"]["points"]
                            if p["name"] == "read"))
        # metadata cost does not grow with the number of files: open+close costs no
        # device time, create one catalog chunk (the first N also fill the
        # medium's write cache, so flatness is checked past it)
        self.assertEqual(tests["S2"]["open_close_exponent_flat"], 0)
        create = {p["params"]["files"]: p["metrics"]["per_file_mean_ns"]
                  for p in tests["S2"]["points"]
                  if p["name"] == "create" and p["params"]["layout"] == "flat"}
        self.assertLess(create[250], 1.2 * create[100])
        self.assertIn("grows O(1)", r.stdout)
        # M2 runs to its free-space floor, and create latency does not grow as the
        # medium fills
        r = run("run", "-t", "sim:emmc-stm32u5,capacity=256M+sensorlog", "--tests", "M2",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        m2 = self.load()["tests"][0]
        self.assertEqual(m2["stopped_by"], "floor")
        # the terminal says why it stopped (issue 15.7), with the free space then
        last_free = m2["points"][-1]["metrics"]["free_bytes"]
        # (sizes show one decimal, truncated: units.c)
        self.assertIn("stopped by the floor with %d.%d MiB free"
                      % (last_free >> 20, (last_free % 2**20) * 10 >> 20), r.stdout)
        self.assertEqual(m2["create_growth_cause"], "none")
        self.assertGreater(m2["lifecycles"], 50)
        creates = [p["metrics"]["create_ns"] for p in m2["points"]]
        third = len(creates) // 3
        first, last = sum(creates[:third]) / third, sum(creates[-third:]) / third
        self.assertLess(last, 1.5 * first)
        r = run("run", "-q", "-t", "sim:emmc-stm32u5+sensorlog", "--tests", "fsync", "-o",
                self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "not_applicable")
        self.assertIn("append-only", t["error"])
        # on NOR the facade's chunk is the 4 KiB sector (a create, a catalog page
        # written twice, then costs two sector erases, not four), and the
        # facade erases ahead as it goes: S2's creates through a log that
        # wraps never wait for a whole segment's erase (they waited 7 s)
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=20M+sensorlog", "--tests", "S2",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load()
        env = doc["environment"]
        self.assertEqual((env["sensorlog_chunk_bytes"], env["sensorlog_segment_bytes"]),
                         (4096, 1 << 20))
        s2 = doc["tests"][0]
        erased = sum(p["device"]["erases"] for p in s2["points"])
        self.assertGreater(erased, 0)  # the 20 MiB log did wrap (before: 7.6 s)
        worst = max(p["latency"]["per_file"]["max_ns"] for p in s2["points"]
                    if p["name"] == "create")
        self.assertLess(worst, 1e9)
        for spec, msg in (("sim:nor-spi+sensorlog,chunk=100", "cannot lay a log"),
                          ("sim:nor-spi+sensorlog,colour=red", "unknown option 'colour'"),
                          ("sim:nor-spi+sensorlog,chunk=big", "bad value 'big'"),
                          ("sim:nor-spi+sensorlog,verify=2", "verify= takes 0 or 1"),
                          ("sim:nor-spi,errors_silent=2+sensorlog", "errors_silent"),
                          ("sim:nor-spi+fatfs", "+extentfs +sensorlog")):
            r = run("run", "-t", spec, "--tests", "B0")
            self.assertEqual(r.returncode, 2, spec)
            self.assertIn(msg, r.stderr, spec)

    def test_sensorlog_segments_grow_with_a_large_medium(self):
        # format and mount read every segment's header and the log keeps
        # 32 B of RAM a segment: 1 MiB segments on a 1 TiB SSD were a million
        # of each (193 s of CPU for paper on nvme-plp). The default doubles
        # 1 MiB until the medium holds at most 65,536; segment= still rules.
        for cap, want in ((4 << 30, 1 << 20), (64 << 30, 1 << 20), (65 << 30, 2 << 20),
                          (1 << 40, 16 << 20)):
            seg = 1 << 20
            while cap // seg > 65536:  # the rule, counted here on its own
                seg *= 2
            self.assertEqual(seg, want)
            r = run("run", "-q", "-t", "sim:nvme-plp,capacity=%d+sensorlog" % cap, "--tests",
                    "seq", "--size", "1M", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            env = self.load()["environment"]
            self.assertEqual(env["sensorlog_segment_bytes"], want, cap)
            self.assertEqual(env["sensorlog_segments"], cap // want)
        r = run("run", "-q", "-t", "sim:nvme-plp,capacity=128G+sensorlog,segment=1M", "--tests",
                "seq", "--size", "1M", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.load()["environment"]["sensorlog_segment_bytes"], 1 << 20)

    def test_sizes_that_cannot_work_are_named_before_the_run(self):
        # the facade writes records of up to 255 B, 267 B of buffer each: a
        # smaller buffer= blamed chunk and segment at 1 B, and at 100 B failed
        # B0's first write with exit 1
        for spec in ("sim:nor-spi+sensorlog,buffer=1", "sim:emmc-stm32u5+sensorlog,buffer=266"):
            r = run("run", "-t", spec, "--tests", "B0", "-o", self.out)
            self.assertEqual(r.returncode, 2, spec)
            size = spec.rsplit("=", 1)[1]
            self.assertIn("buffer=%s is too small" % size, r.stderr, spec)
            self.assertIn("at least buffer=267", r.stderr, spec)
            self.assertFalse(os.path.exists(self.out), spec)
        # the least it names is enough
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=8M+sensorlog,buffer=267", "--tests", "B0",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        os.remove(self.out)
        # a segment too small for the catalog's copy that opens it, and a medium
        # too small for the segments: said so (the message listed every rule)
        r = run("run", "-t", "sim:nor-spi,capacity=2M+sensorlog", "--tests", "B0", "-o", self.out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the medium holds 2 segments of 1048576 B", r.stderr)
        r = run("run", "-t", "sim:nor-spi+sensorlog,segment=16K", "--tests", "B0", "-o", self.out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("segment=16384 holds 4 chunks", r.stderr)
        self.assertIn("catalog", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_a_test_that_cannot_run_here_does_not_size_the_run(self):
        # fsync rewrites its 16 MiB file in place: not applicable on sensorlog's
        # append-only files, yet its scratch refused the whole run on an 8 MiB
        # medium (exit 2, "fsync needs 16 MiB") where B0 fits; so on bare raw flash
        for spec in ("sim:nor-spi,capacity=8M+sensorlog", "sim:nor-spi,capacity=8M"):
            r = run("run", "-t", spec, "--tests", "B0,fsync", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(self.out) as f:
                doc = json.load(f)
            status = {t["id"]: t["status"] for t in doc["tests"]}
            self.assertEqual(status, {"B0": "ok", "fsync": "not_applicable"}, spec)
            os.remove(self.out)
        # a test that can run keeps its check: seq's file does not fit
        r = run("run", "-t", "sim:nor-spi,capacity=8M+sensorlog", "--tests", "seq",
                "--size", "64M", "-o", self.out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not enough space", r.stderr)
