"""CLI tests: Faults injected into runs (run through test_cli.py)."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


class FaultHelpers:
    """Fault injection (target option fail_at=K): a failed operation ends the
    test with exit 1, names the operation and the file, keeps valid JSON and
    leaves nothing behind - and never hangs (issue 13)."""

    def count_ops(self, spec, tests, *extra):
        r = run("run", "-q", "-t", spec + ",fail_at=0", "--tests", tests, *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"fault injection: (\d+) operations counted, 0 failed", r.stderr)
        self.assertTrue(m, r.stderr)
        return int(m.group(1))

    def expect_failure(self, spec, tests, name_re, *extra, on_disk=True):
        r = run("run", "-q", "-t", spec, "--tests", tests, "-o", self.out, *extra, timeout=120)
        self.assertEqual(r.returncode, 1, (spec, r.stderr))
        doc = self.load()
        self.assertEqual(doc["status"], "failed")
        failed = [t for t in doc["tests"] if t["status"] == "failed"]
        self.assertEqual(len(failed), 1, doc["tests"])
        self.assertRegex(failed[0]["error"], name_re)
        if on_disk:
            self.assertTrue(self.target_is_empty(), os.listdir(os.path.join(self.dir, "t")))
        return doc


class Faults(FaultHelpers, Base):
    """The I/O task's failure path: threads (ctest cli-failures, TSan too)."""

    def test_s1_io_task_write_failure_ends_the_run(self):
        # the I/O task used to stop draining its queue on an error: the
        # producers blocked on the full queue and the run hung for ever
        spec = self.target + ",fail_op=write"
        n = self.count_ops(spec, "S1")
        # late in the run is the I/O task's (the last mode): once, and from there on
        for k, sticky in ((n - 20, 0), (n // 2, 1)):
            with self.subTest(k=k, sticky=sticky):
                self.expect_failure("%s,fail_at=%d,fail_from=%d" % (spec, k, sticky), "S1",
                                    r"^(write|seek) s1_[ab]\.dat: I/O error")


class FaultsOnModels(FaultHelpers, Base):
    """Failures on the simulated models, one thread (ctest cli-failures-sim)."""

    def test_every_kind_of_operation_failing_once(self):
        # on the simulated study medium (virtual time: fast and the same
        # every time); the posix path is the S1 test's
        for op in ("open", "write", "read", "sync", "close", "seek"):
            with self.subTest(op=op):
                spec = "sim:emmc-stm32u5,fail_op=%s" % op
                args = ("-d", "2s", "--size", "1M", "--verify")
                n = self.count_ops(spec, "B0,fsync,M1", *args)
                self.assertGreater(n, 0)
                for k in ((1, (n + 1) // 2, n) if op == "write" else ((n + 1) // 2,)):
                    self.expect_failure("%s,fail_at=%d" % (spec, k), "B0,fsync,M1",
                                        r"^%s \S+: I/O error" % op, *args, on_disk=False)

    def test_a_failed_test_keeps_its_row_and_the_totals(self):
        # issue 41.4: the terminal printed the header and "run failed: I/O
        # error", no B0 row and no totals; the row names the operation and
        # the file, and no guideline is drawn from a run that did not finish
        r = run("run", "-t", "sim:emmc-stm32u5,fail_at=500,fail_op=write", "--tests", "B0",
                "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stdout, r"(?m)^  B0 +FAILED: write B0\.dat: I/O error$")
        self.assertIn("0 tests ok, 1 failed, 0 not applicable", r.stdout)
        self.assertNotIn("Guidelines", r.stdout)
        self.assertIn("run failed: I/O error", r.stderr)
        self.assertEqual(self.load()["tests"][0]["status"], "failed")

    def test_a_failed_mkdir_is_named_as_mkdir(self):
        # found by the fault sweep on FileX (M2's probe directory): the error
        # said "create directory m2_probe", which names no operation of the
        # filesystem interface; every error is "OP PATH: reason"
        self.expect_failure("sim:emmc-stm32u5,fail_op=mkdir,fail_at=1+sensorlog", "M2",
                            r"^mkdir m2_probe: I/O error", on_disk=False)

    def test_device_commands_failing(self):
        # issue 13.1, the device twin: dev_fail_at=K fails the K-th device
        # command under whatever filesystem sits on the model
        r = run("run", "-q", "-t", "sim:emmc-stm32u5,dev_fail_at=0", "--tests", "B2",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"device fault injection: (\d+) device commands counted, 0 failed", r.stderr)
        self.assertTrue(m, r.stderr)
        n = int(m.group(1))
        for k in (1, n // 2, n):
            with self.subTest(k=k):
                r = run("run", "-q", "-t", "sim:emmc-stm32u5,dev_fail_at=%d" % k, "--tests", "B2",
                        "-o", self.out, timeout=120)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("1 failed", r.stderr)
                t = self.load()["tests"][0]
                self.assertEqual(t["status"], "failed")
                self.assertRegex(t["error"], r"^(read|write|sync) B2\.dat: I/O error")
        # a card that dies under sensorlog while the log is laid: a failed
        # run, not a usage error, and said so
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=4M+sensorlog,dev_fail_at=1,dev_fail_from=1",
                "--tests", "seq", "--size", "64K", "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("formatting the log failed: the device returned an I/O error", r.stderr)
        # ... or later: reads name the device's error, not "out of range"
        # (the last commands of the run are seq's reads)
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=4M+sensorlog,dev_fail_at=0",
                "--tests", "seq", "--size", "64K", "-o", self.out)
        n = int(re.search(r"(\d+) device commands counted", r.stderr).group(1))
        r = run("run", "-q", "-t",
                "sim:nor-spi,capacity=4M+sensorlog,dev_fail_at=%d,dev_fail_from=1" % (n - 3),
                "--tests", "seq", "--size", "64K", "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(self.load()["tests"][0]["error"], r"seq\.dat: I/O error")
        # one failed program under sensorlog is worked around (the chunk is
        # redone in the next segment), and counted
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=4M+sensorlog,dev_fail_at=20,dev_fail_op=program",
                "--tests", "seq", "--size", "64K", "--verify", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 failed", r.stderr)
