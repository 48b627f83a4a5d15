"""CLI tests: storscope log, the progress line and Ctrl-C (run through test_cli.py)."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


class Log(Base):
    def test_demo_on_a_block_device_says_what_each_sync_kept(self):
        # issue 45: a logger's own medium (a card) formatted whole as a demo
        # log, a line after each sync: the power-cut check of
        # tests/vm/kernel_vm.py counts what the log kept against them
        if os.geteuid() != 0 or not shutil.which("losetup"):
            self.skipTest("needs root and losetup for a block device")
        img = os.path.join(self.dir, "card.img")
        with open(img, "wb") as f:
            f.truncate(8 << 20)
        lo = subprocess.run(["losetup", "-f", "--show", img], capture_output=True, text=True)
        if lo.returncode:
            self.skipTest("cannot set up a loop device here: " + lo.stderr.strip())
        dev = lo.stdout.strip()
        try:
            r = run("log", "demo", dev, "--seconds", "2")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("needs --allow-destructive", r.stderr)
            r = run("log", "demo", dev, "--allow-destructive", "--size", "4M")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--size is an image's", r.stderr)
            r = run("log", "demo", dev, "--allow-destructive", "--seconds", "3", "--progress")
            self.assertEqual(r.returncode, 0, r.stderr)
            synced = re.findall(r"synced (\d+) s: imu (\d+), ppg (\d+), env (\d+) records",
                                r.stdout)
            self.assertEqual([s[0] for s in synced], ["1", "2", "3"])
            d = run("log", "dump", dev, "--csv")
            self.assertEqual(d.returncode, 0, d.stderr)
            rows = list(csv.DictReader(io.StringIO(d.stdout)))
            for i, name in ((1, "imu"), (2, "ppg"), (3, "env")):
                ts = [int(x["timestamp"]) for x in rows if x["stream"] == name]
                self.assertEqual(len(ts), int(synced[-1][i]), name)
                self.assertEqual(ts, sorted(ts), name)
        finally:
            subprocess.run(["losetup", "-d", dev], capture_output=True)
        self.assertTrue(os.path.exists(img))

    def test_demo_then_dump_reads_every_record_and_changes_nothing(self):
        img = os.path.join(self.dir, "card.img")
        r = run("log", "demo", img, "--seconds", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(img, "rb") as f:
            before = f.read()
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(r.stdout.splitlines()))
        # 3 s: imu 1 kHz, ppg 100 Hz, env 1 Hz
        by = {}
        for row in rows:
            by.setdefault(row["stream"], []).append(row)
        self.assertEqual({k: len(v) for k, v in by.items()}, {"imu": 3000, "ppg": 300, "env": 3})
        self.assertEqual([int(x["gseq"]) for x in rows], list(range(len(rows))))
        self.assertEqual(bytes.fromhex(by["env"][2]["data_hex"]).decode(),
                         "t=2s temp=21.5C rh=40%")
        self.assertEqual([int(x["timestamp"]) for x in by["imu"][:3]], [0, 1000000, 2000000])
        r = run("log", "dump", img, "--stream", "env")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 3)
        self.assertIn("3303 records", run("log", "dump", img).stderr)
        with open(img, "rb") as f:
            self.assertEqual(f.read(), before)  # read-only
        # a torn end: the last chunks destroyed, everything before still there
        with open(img, "r+b") as f:
            data = bytearray(before)
            last = max(i for i in range(0, len(data), 4096) if data[i:i + 2] == b"CK")
            f.seek(last + 100)
            f.write(b"\x00" * 50)
        # the chunk header's record count (docs/sensorlog-format.md: offset 6)
        in_last = int.from_bytes(before[last + 6:last + 8], "little")
        self.assertGreater(in_last, 0)
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()) - 1, len(rows) - in_last)

    def demo_image(self, seconds="20"):  # 20 s: ~450 KB, three segments of the four
        img = os.path.join(self.dir, "card.img")
        r = run("log", "demo", img, "--seconds", seconds)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(img, "rb") as f:
            data = bytearray(f.read())
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        return img, data, list(csv.DictReader(r.stdout.splitlines()))

    @staticmethod
    def headers(data):
        # segment headers as the format documents them: magic, 60, CRC-32C
        return [i for i in range(0, len(data), 1024)
                if data[i:i + 4] == b"SLSG" and data[i + 6] == 60]

    def test_dump_finds_the_log_when_segment_0_is_free(self):
        img, data, rows = self.demo_image()
        seg = int.from_bytes(data[36:40], "little")
        data[0:seg] = b"\0" * seg  # segment 0 trimmed, as after a wrap
        with open(img, "wb") as f:
            f.write(data)
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        got = list(csv.DictReader(r.stdout.splitlines()))
        self.assertGreater(len(got), 0)
        # what is left is the end of what was written, in order, unchanged
        self.assertEqual(got, rows[len(rows) - len(got):])

    def test_dump_reads_a_truncated_image_and_says_so(self):
        img, data, rows = self.demo_image()
        seg = int.from_bytes(data[36:40], "little")
        with open(img, "wb") as f:
            f.write(data[:seg + seg // 2])  # a copy cut short in segment 1
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cut short", r.stderr)
        got = list(csv.DictReader(r.stdout.splitlines()))
        self.assertGreater(len(got), 0)
        self.assertLess(len(got), len(rows))
        self.assertEqual(got, rows[:len(got)])

    def test_dump_steps_over_a_lost_segment_and_says_so(self):
        # issue 40.3/40.4: a segment whose header and its stand-in (catalog
        # page 0) are both damaged hid every record after it; now they are
        # shown and the loss is named as a segment's, with its records
        img, data, rows = self.demo_image("60")
        heads = self.headers(data)
        self.assertGreaterEqual(len(heads), 3)
        chunk = int.from_bytes(data[heads[0] + 32:heads[0] + 36], "little")
        seqs = sorted((int.from_bytes(data[h + 8:h + 12], "little"), h) for h in heads)
        victim, after = seqs[1][1], seqs[2][1]  # neither the oldest nor the newest
        lost = (int.from_bytes(data[after + 16:after + 24], "little") -
                int.from_bytes(data[victim + 16:victim + 24], "little"))
        data[victim + 9] ^= 0x10          # the header's sequence number
        data[victim + chunk + 9] ^= 0x10  # catalog page 0's, which stands in for it
        with open(img, "wb") as f:
            f.write(data)
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("1 segment of the log could not be read", r.stderr)
        self.assertIn("%d records lost" % lost, r.stderr)
        got = list(csv.DictReader(r.stdout.splitlines()))
        self.assertEqual(len(got), len(rows) - lost)
        self.assertEqual(got[-1], rows[-1])  # the records after the gap are all there

    def test_dump_reports_damage_and_loses_only_its_part(self):
        img, data, rows = self.demo_image()
        chunk = int.from_bytes(data[32:36], "little")
        # a byte in the first part of a data chunk in the middle of the log
        cks = [i for i in range(0, len(data), chunk) if data[i:i + 3] == b"CK\x01"]
        victim = cks[len(cks) // 2]
        part = 1 << ((data[victim + 3] >> 4) + 7)  # flags bits 4-7: parts of 2^(v + 7) B
        self.assertEqual(part, 2048)  # the demo's 16 KiB chunks are in parts
        n_parts = (chunk - 52 + part - 1) // part
        data_off = 52 + 16 * n_parts
        data[victim + data_off + 20] ^= 0x40
        got = self.dump_damaged(img, data, "1 chunk or part of one inside the log could not be read")
        # lost: the records that start in part 0, up to the first that starts
        # in a later part (its index, from the part table: entry +6)
        used = int.from_bytes(data[victim + 4:victim + 6], "little")
        n_in_chunk = int.from_bytes(data[victim + 6:victim + 8], "little")
        starts = [int.from_bytes(data[victim + 52 + 16 * k + 6:victim + 52 + 16 * k + 8],
                                 "little")
                  for k in range(1, n_parts) if k * part < used and
                  data[victim + 52 + 16 * k + 4:victim + 52 + 16 * k + 6] != b"\xff\xff"]
        lost = starts[0] if starts else n_in_chunk
        self.assertGreater(lost, 0)
        self.assertLess(lost, n_in_chunk)  # before: the whole chunk
        self.assertEqual(len(got), len(rows) - lost)
        first_gseq = int.from_bytes(data[victim + 16:victim + 24], "little")
        self.assertEqual([r for r in rows if not first_gseq <= int(r["gseq"]) < first_gseq + lost],
                         got)

    def dump_damaged(self, img, data, said):
        """The records `log dump --csv` shows of `data` written to `img`,
        which it must say is damaged (exit 1, `said` on stderr)."""
        with open(img, "wb") as f:
            f.write(data)
        r = run("log", "dump", img, "--csv")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(said, r.stderr)
        return list(csv.DictReader(r.stdout.splitlines()))

    def test_dump_of_an_image_with_200_flipped_bytes_shows_what_survived(self):
        # issue 44: 200 bytes flipped across the written part of the demo
        # image showed 0 of 11,010 records, exit 0 and "1 chunk ... could
        # not be read": a damaged chunk followed by another was taken for
        # the segment's torn end and the rest of the segment skipped unsaid
        img, data, rows = self.demo_image()
        used = max(i for i in range(len(data)) if data[i] != 0xFF)
        rng = random.Random(1)
        for _ in range(200):
            data[rng.randrange(used)] ^= 1 << rng.randrange(8)
        got = self.dump_damaged(img, data, "inside the log could not be read (damaged)")
        # every record shown is one the log holds, and most chunks' parts
        # outlive a flip each: well over a third of the records come back
        held = {tuple(sorted(row.items())) for row in rows}
        self.assertTrue(all(tuple(sorted(g.items())) in held for g in got))
        self.assertGreater(len(got), len(rows) // 3)

    def test_demo_never_fills_the_filesystem_it_writes_on(self):
        # a 64 MiB image on a 16 MiB filesystem wrote until the filesystem was
        # full, then said "the image is too small for four segments"
        mnt = self.loop_mount("small", 16 << 20)
        try:
            img = os.path.join(mnt, "demo.img")
            r = run("log", "demo", img, "--size", "64M", "--seconds", "600")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("not enough free space for a 64 MiB image in %s" % mnt, r.stderr)
            self.assertEqual(os.listdir(mnt), ["lost+found"])
            # one that fits with storscope's reserve (5 %, at least min(64 MiB,
            # 10 %)) left free is written
            st = os.statvfs(mnt)
            total, free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
            self.assertGreater(free - max(total // 20, min(64 << 20, total // 10)), 2 << 20)
            r = run("log", "demo", img, "--size", "2M", "--seconds", "2")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(os.path.getsize(img), 2 << 20)
        finally:
            subprocess.run(["umount", mnt], capture_output=True)

    def test_dump_of_a_stream_that_is_not_there_names_those_that_are(self):
        img = os.path.join(self.dir, "card.img")
        self.assertEqual(run("log", "demo", img, "--seconds", "1").returncode, 0)
        r = run("log", "dump", img, "--stream", "gyro")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("%s has no stream 'gyro' (its streams: imu, ppg, env)" % img, r.stderr)

    def test_dump_of_an_empty_file_says_it_is_empty(self):
        img = os.path.join(self.dir, "empty.img")
        open(img, "wb").close()
        r = run("log", "dump", img)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("empty.img is empty (0 bytes)", r.stderr)
        self.assertEqual(os.path.getsize(img), 0)

    def test_dump_bounds_what_a_header_makes_it_allocate(self):
        img, data, rows = self.demo_image()
        import struct
        for field, value, why in ((40, 1 << 31, "number of segments"),
                                  (32, 1 << 30, "chunk size"),
                                  (48, 1 << 20, "number of streams")):
            bad = bytearray(data)
            for h in self.headers(bad):
                struct.pack_into("<I", bad, h + field, value)
                struct.pack_into("<I", bad, h + 56, crc32c(bytes(bad[h:h + 56])))
            with open(img, "wb") as f:
                f.write(bad)
            r = run("log", "dump", img)
            self.assertEqual(r.returncode, 2, (why, r.stderr))
            self.assertIn(why, r.stderr)

    def test_bad_input(self):
        img = os.path.join(self.dir, "card.img")
        with open(img, "wb") as f:
            f.write(b"\0" * 65536)
        for args, msg in ((["dump", img], "holds no sensorlog"),
                          (["dump", os.path.join(self.dir, "none.img")], "No such file"),
                          (["dump"], "needs one IMAGE"),
                          (["demo", img], "it exists (a demo writes a new image, never over a file)"),
                          (["frob", img], "unknown log subcommand"),
                          (["demo", img + "2", "--size", "1K"], "--size")):
            r = run("log", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(msg, r.stderr, args)
        r = run("log", "demo", img + "3", "--seconds", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("log", "dump", img + "3", "--stream", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no stream 'nope'", r.stderr)


class ProgressLine(Base):
    """On a terminal, run shows one progress line on stderr - the test, its
    place in the plan, what it does, how far - redrawn in place and cleared
    at the end; off a terminal it shows none (scripts and CI logs). No test
    saw the line before: src/output/progress.c was 0 % covered."""

    def run_on_a_terminal(self, *args, columns=0):
        import fcntl
        import pty
        import struct
        import termios
        master, slave = pty.openpty()
        if columns:  # (a new pty says 0 columns: no limit)
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        p = subprocess.Popen([BIN, "run", "-o", self.out, *args], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # (the other side closed: Linux says EIO)
                break
            if not chunk:
                break
            err += chunk
        out = p.communicate(timeout=300)[0]
        os.close(master)
        return p.returncode, out.decode(), err.decode()

    def test_the_line_says_where_the_run_is_and_leaves_no_trace(self):
        rc, out, err = self.run_on_a_terminal("-t", "sim:emmc-stm32u5", "--tests", "B0,B2")
        self.assertEqual(rc, 0, err)
        lines = [l for l in err.split("\r\x1b[K") if l]
        self.assertTrue(lines, repr(err))
        self.assertRegex(lines[0], r"^\[B0 1/2\] ")
        self.assertTrue(any(l.startswith("[B2 2/2] ") for l in lines), repr(err))
        for l in lines:
            self.assertRegex(l, r"^\[(B0 1|B2 2)/2\] \S.*?(  +\d+ %.*)?$")
        self.assertTrue(err.endswith("\r\x1b[K"), repr(err[-40:]))  # cleared at the end
        self.assertNotIn("\x1b", out)  # the results on stdout carry none of it
        # cleared only where a test begins or ends (two clears in a row): a
        # line cleared at every point was redrawn at every point, past the
        # 200 ms it waits between redraws
        self.assertLessEqual(err.count("\r\x1b[K\r\x1b[K"), 4, repr(err[:300]))
        os.remove(self.out)
        # with --tables a row per point goes to the terminal: the line makes
        # way for each, and is drawn again after it - so every point's line
        # is here to read: the test's ETA, the run's while a test follows
        # (issue 44), and the live rate, the last point's
        rc, out, err = self.run_on_a_terminal("-t", "sim:emmc-stm32u5", "--tests", "B0,B2",
                                              "--tables")
        self.assertEqual(rc, 0, err)
        self.assertGreater(err.count("\r\x1b[K\r\x1b[K"), 10, repr(err[:300]))
        lines = [l for l in err.split("\r\x1b[K") if l]
        b0 = [l for l in lines if l.startswith("[B0 1/2] ")]
        b2 = [l for l in lines if l.startswith("[B2 2/2] ")]
        self.assertTrue(any(re.search(r"  ~\d+ (s|min) left \(run: ~\d+ (s|min) at this pace\)",
                                      l) for l in b0), b0[:3])
        self.assertFalse(any("(run:" in l for l in b2), b2[:3])  # nothing follows B2
        self.assertTrue(any(re.search(r"  ~\d+ (s|min) left  last point", l) for l in b2),
                        b2[:3])
        self.assertNotIn("last point", b0[0])  # before any point: no rate yet
        rates = [re.search(r"last point (\S+ \S+)", l).group(1) for l in b0 if "last point" in l]
        self.assertTrue(rates and all(re.match(r"[\d.]+ (B|KiB|MiB|GiB)/s$", r) for r in rates),
                        rates[:5])
        os.remove(self.out)
        # one row of a 60-column terminal, never two: a wrapped line is not
        # erased by the next draw and leaves a copy each time
        rc, out, err = self.run_on_a_terminal("-t", "sim:emmc-stm32u5", "--tests", "B0",
                                              "--tables", columns=60)
        self.assertEqual(rc, 0, err)
        lines = [l for l in err.split("\r\x1b[K") if l]
        self.assertTrue(lines)
        self.assertEqual(max(len(l) for l in lines), 59, lines[:3])
        r = run("run", "-t", "sim:emmc-stm32u5", "--tests", "B0", "-o", self.out)
        self.assertNotIn("\x1b", r.stderr)  # not a terminal: no line


class Interrupt(Base):
    def start_and_wait_for_points(self, args, points, bound=900):
        """Starts a run and returns once `points` points are in its results.
        Waits on that event (the results file growing), not on a fixed time:
        under sanitizers a point takes minutes."""
        p = subprocess.Popen([BIN, "run", "-o", self.out, "-q", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        partial = self.out + ".partial"
        deadline = time.time() + bound
        while True:
            try:
                with open(partial) as f:
                    if f.read().count('"metric":') >= points:
                        break
            except FileNotFoundError:
                pass
            if p.poll() is not None or time.time() > deadline:
                p.kill()
                self.fail("the run ended or stalled before %d points" % points)
            time.sleep(0.05)
        self.assertFalse(os.path.exists(self.out))  # the final name only at the end
        return p

    def test_a_rerun_removes_what_a_killed_run_left(self):
        # issue 44: SIGKILL leaves the scratch directory and FILE.partial; a
        # rerun in the same place removed neither, and each added one more
        tdir = os.path.join(self.dir, "t")
        p = self.start_and_wait_for_points(["-t", self.target, "--tests", "B0"], 1)
        p.kill()
        p.wait()
        left = os.listdir(tdir)
        self.assertEqual(len(left), 1, left)
        self.assertRegex(left[0], r"^storscope\.%d\.\w{6}$" % p.pid)
        self.assertTrue(os.path.exists(self.out + ".partial"))
        # a live run's directory is never touched: this test's own process
        # stands for one (its PID runs)
        live = os.path.join(tdir, "storscope.%d.abcdef" % os.getpid())
        os.mkdir(live)
        r = run("run", "-q", "-t", self.target, "--tests", "B0", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("removed 1 scratch directory in %s left by a run that was killed (%s)"
                      % (tdir, left[0]), r.stderr)
        self.assertEqual(os.listdir(tdir), [os.path.basename(live)])
        self.assertFalse(os.path.exists(self.out + ".partial"))
        self.assertEqual(self.load()["status"], "ok")
        os.rmdir(live)

    def check_interrupted(self, p, min_points=2):
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("stopped", err)
        self.assertFalse(os.path.exists(self.out + ".partial"))
        doc = self.load()
        self.assertEqual(doc["status"], "interrupted")
        self.assertTrue(doc["interrupted"])
        first = doc["tests"][0]
        self.assertEqual(first["status"], "interrupted")
        self.assertGreaterEqual(len(first["points"]), min_points)
        self.assertTrue(self.target_is_empty())
        return doc

    def test_sigint_stops_log_demo_and_removes_its_image(self):
        # a demo killed halfway left a 64 MiB image holding part of a log
        img = os.path.join(self.dir, "demo.img")
        p = subprocess.Popen([BIN, "log", "demo", img, "--size", "64M", "--seconds", "86400"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 300
        while not os.path.exists(img) and p.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # into the writing (a day of streams takes far longer)
        self.assertIsNone(p.poll(), "the demo ended before it was interrupted")
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("interrupted: %s, half written, was removed" % img, err)
        self.assertFalse(os.path.exists(img))

    def test_sigint_keeps_finished_points_and_cleans_up(self):
        p = self.start_and_wait_for_points(["-t", self.target, "--tests", "B0,B1", "--scale",
                                            "full", "--runs", "2"], 2)
        p.send_signal(signal.SIGINT)
        doc = self.check_interrupted(p)
        # B0 in rounds (a real device): stopped in its last round, the points
        # not yet run in it are kept with the one run they have
        pts = doc["tests"][0]["points"]
        self.assertTrue(len(pts) < 22 or any(pt["runs"]["n"] < 2 for pt in pts))

    def test_sigint_keeps_what_the_rounds_measured(self):
        # a sweep in rounds (a device in real time) emits its points in its
        # last round; stopped before that, it kept nothing of what its
        # rounds had measured. Now each point measured so far is kept, with
        # its runs so far and without latencies, which are not its own then
        p = subprocess.Popen([BIN, "run", "-q", "-t", "sim:sd-consumer,capacity=1G,clock=real",
                              "--tests", "B2", "-o", self.out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)  # into the first rounds: five of them take minutes
        p.send_signal(signal.SIGINT)
        doc = self.check_interrupted(p, min_points=1)
        b2 = doc["tests"][0]
        self.assertIs(b2["params"]["rounds"], True)
        for pt in b2["points"]:
            self.assertLess(pt["runs"]["n"], 5, pt["params"])
            self.assertEqual(len(pt["runs"]["values"]), pt["runs"]["n"])
            self.assertFalse(pt.get("latency"), pt["params"])

    def start_fsync_and_wait_for_its_loop(self):
        p = subprocess.Popen([BIN, "run", "-q", "-t", self.target, "--tests", "fsync", "-d",
                              "10m", "--size", "1M", "-o", self.out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # the scratch file exists once the timed loop can start: an event, not a time
        t = os.path.join(self.dir, "t")
        deadline = time.time() + 300
        while not any(os.listdir(os.path.join(t, d)) for d in os.listdir(t)):
            if time.time() > deadline or p.poll() is not None:
                p.kill()
                self.fail("fsync never started")
            time.sleep(0.05)
        time.sleep(0.5)  # some operations into the loop; any number >= 1 will do
        return p

    def test_second_signal_and_sighup_still_clean_up(self):
        # a second Ctrl-C used to kill at once: invalid JSON, scratch files left
        for signals in ((signal.SIGINT, signal.SIGINT), (signal.SIGHUP,),
                        (signal.SIGTERM, signal.SIGINT)):
            with self.subTest(signals=signals):
                p = self.start_fsync_and_wait_for_its_loop()
                for sig in signals:
                    p.send_signal(sig)
                self.check_interrupted(p, min_points=1)
                os.unlink(self.out)

    def test_interrupted_fsync_keeps_its_partial_point(self):
        p = self.start_fsync_and_wait_for_its_loop()
        p.send_signal(signal.SIGINT)
        doc = self.check_interrupted(p, min_points=1)
        point = doc["tests"][0]["points"][0]
        self.assertTrue(point["metrics"]["partial"])
        self.assertGreater(point["metrics"]["ops"], 0)
