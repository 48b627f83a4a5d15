"""CLI tests: raw: targets and storscope probe (run through test_cli.py)."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


class Raw(Base):
    def test_active_swap_file_is_refused(self):
        # issue 13: refused as swap devices are (the kernel refused the writes)
        swapon, mkswap = shutil.which("swapon"), shutil.which("mkswap")
        if os.geteuid() != 0 or not swapon or not mkswap:
            self.skipTest("needs root and swapon/mkswap to make an active swap file")
        sw = os.path.join(self.dir, "swapfile")
        with open(sw, "wb") as f:
            f.write(b"\0" * (16 << 20))
        os.chmod(sw, 0o600)
        subprocess.run([mkswap, sw], capture_output=True, check=True)
        if subprocess.run([swapon, sw], capture_output=True).returncode:
            self.skipTest("swapon refused here (a container without CAP_SYS_ADMIN?)")
        try:
            before = open(sw, "rb").read()
            for extra in ([], ["--allow-destructive"]):
                r = run("run", "-t", "raw:" + sw, "--tests", "M1", *extra, "-o", self.out)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("active swap file", r.stderr)
                self.assertFalse(os.path.exists(self.out))
        finally:
            subprocess.run(["swapoff", sw], capture_output=True)
        self.assertEqual(open(sw, "rb").read(), before)

    def make_image(self, size=64 << 20):
        img = os.path.join(self.dir, "disk.img")
        with open(img, "wb") as f:
            f.truncate(size)
            f.write(os.urandom(1 << 20))
        return img

    @staticmethod
    def digest(path):
        import hashlib
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    def test_image_is_left_byte_identical_without_allow_destructive(self):
        img = self.make_image()
        before = self.digest(img)
        r = run("run", "-q", "-t", "raw:" + img, "--tests", "B2,M1,fsync,seq", "--size", "8M",
                "--runs", "1", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.digest(img), before)
        doc = self.load()
        self.assertEqual(doc["environment"]["raw_access"], "read-only")
        by_id = {t["id"]: t for t in doc["tests"]}
        self.assertEqual(by_id["fsync"]["status"], "not_applicable")
        b0 = by_id["B2"]["points"]
        self.assertTrue(all("skipped" in p for p in b0 if p["name"] == "write"))
        self.assertTrue(all("runs" in p for p in b0 if p["name"] == "read"))
        r = run("run", "-q", "-t", "raw:" + img, "--tests", "B0", "--verify")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--allow-destructive", r.stderr)

    def test_a_target_that_is_not_a_medium_is_said_to_be(self):
        # issue 41.4: raw: on a loop device reported the host's page cache
        # (1.92 GiB/s "uncached") without a word; an image measures its disk
        img = self.make_image(16 << 20)
        r = run("run", "-q", "-t", "raw:" + img, "--tests", "M1", "--size", "4M", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("an image file", r.stderr)
        self.assertTrue(any("image file" in w for w in self.load()["warnings"]))
        if os.geteuid() != 0 or not shutil.which("losetup"):
            self.skipTest("loop devices need root and losetup")
        for dio, warned in (("off", True), ("on", False)):
            lo = subprocess.run(["losetup", "-f", "--show", "--direct-io=" + dio, img],
                                capture_output=True, text=True)
            if lo.returncode:
                self.skipTest("cannot set up a loop device here: " + lo.stderr.strip())
            dev = lo.stdout.strip()
            try:
                r = run("run", "-q", "-t", "raw:" + dev, "--tests", "M1", "--size", "4M",
                        "-o", self.out)
            finally:
                subprocess.run(["losetup", "-d", dev], capture_output=True)
            with self.subTest(dio=dio):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual("without direct I/O" in r.stderr, warned, r.stderr)

    def test_sensorlog_stacks_on_a_raw_image(self):
        # issue 45: "raw:card.img+sensorlog" was refused ("filesystem
        # '+sensorlog' is not available in this build"); a store stacks on
        # any block device, and formatting needs --allow-destructive
        img = self.make_image()
        before = self.digest(img)
        r = run("run", "-t", "raw:" + img + "+sensorlog", "--tests", "B0", "-o", self.out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("needs --allow-destructive", r.stderr)
        self.assertEqual(self.digest(img), before)
        self.assertFalse(os.path.exists(self.out))
        with open(img, "rb") as f:
            head = f.read(1 << 20)  # before offset=: never written
        r = run("run", "-q", "-t", "raw:" + img + ",offset=1M+sensorlog,segment=512K", "--tests",
                "B0,M1", "--verify", "--allow-destructive", "--scale", "quick", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load()
        self.assertEqual(doc["environment"]["filesystem"], "sensorlog")
        self.assertEqual(doc["environment"]["sensorlog_segment_bytes"], 512 << 10)
        self.assertTrue(all(t["status"] == "ok" for t in doc["tests"]), doc["tests"])
        with open(img, "rb") as f:
            self.assertEqual(f.read(1 << 20), head)
        r = run("log", "dump", img)  # the log is sensorlog's format: its own tools read it
        self.assertIn("segments of 512 KiB", r.stderr + r.stdout)

    def built_filesystems(self):
        """The +FS names `list targets` says this build stacks on raw:."""
        r = run("list", "targets")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        at = [i for i, l in enumerate(lines) if l.startswith("raw ")]
        self.assertTrue(at, r.stdout)
        fs = [l for l in lines[at[0]:at[0] + 4] if "filesystems in this build" in l]
        self.assertTrue(fs, r.stdout)
        return [w[1:] for w in fs[0].split(":", 1)[1].split()]

    def test_any_filesystem_stacks_on_a_raw_image(self):
        # issues 42 and 45: one seam stacks every filesystem on any block
        # device; raw: took +sensorlog alone ("filesystem '+extentfs' is not
        # available on raw:", and littlefs, FatFs and FileX only on sim:)
        names = self.built_filesystems()
        self.assertIn("extentfs", names)
        self.assertIn("sensorlog", names)
        img = self.make_image(48 << 20)
        with open(img, "r+b") as f:  # old data after the region too
            f.seek(40 << 20)
            f.write(os.urandom(1 << 20))
        with open(img, "rb") as f:
            data = f.read()
        head, tail = data[:1 << 20], data[33 << 20:]
        for fs in names:
            # sensorlog takes the device to its end (size= bounds the others)
            region = ",offset=1M" + ("" if fs == "sensorlog" else ",size=32M")
            r = run("run", "-q", "-t", "raw:%s%s+%s" % (img, region, fs), "--tests", "M1,fsync",
                    "--verify", "--allow-destructive", "--duration", "300ms", "--size", "4M",
                    "--runs", "1", "-o", self.out)
            with self.subTest(fs=fs):
                self.assertEqual(r.returncode, 0, r.stderr)
                doc = self.load()
                self.assertEqual(doc["environment"]["filesystem"], fs)
                # fsync rewrites in place: not applicable on an append-only log
                status = {t["id"]: t["status"] for t in doc["tests"]}
                self.assertEqual(status, {"M1": "ok", "fsync": "not_applicable" if
                                          fs == "sensorlog" else "ok"})
                with open(img, "rb") as f:
                    now = f.read()
                self.assertEqual(now[:1 << 20], head, "wrote before offset=")
                if fs != "sensorlog":
                    self.assertEqual(now[33 << 20:], tail, "wrote past offset+size")
        if "littlefs" not in names:
            print("test_any_filesystem_stacks_on_a_raw_image: littlefs, FatFs and FileX not run:"
                  " not in this build (docs/third-party-filesystems.md)", file=sys.stderr)
        # one message for a filesystem that is not built, whatever the kind
        for kind in ("raw:" + img, "sim:emmc-stm32u5"):
            r = run("run", "-t", kind + "+ext9", "--tests", "B0", "--allow-destructive",
                    "-o", self.out + "2")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("filesystem '+ext9' is not available in this build (+extentfs "
                          "+sensorlog", r.stderr)
        # bare extents read a device opened read-only; a filesystem that
        # formats is refused there, and nothing is written
        before = self.digest(img)
        r = run("run", "-q", "-t", "raw:%s+extentfs" % img, "--tests", "B2", "--size", "4M",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for fs in names[1:]:
            r = run("run", "-t", "raw:%s+%s" % (img, fs), "--tests", "B0", "-o", self.out + "3")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("needs --allow-destructive", r.stderr)
        self.assertEqual(self.digest(img), before)

    def test_image_written_with_allow_destructive(self):
        img = self.make_image()
        r = run("run", "-q", "-t", "raw:" + img + ",offset=1M,size=32M", "--tests", "M1,fsync",
                "--verify", "--allow-destructive", "--duration", "300ms", "--size", "4M",
                "--runs", "1", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load()
        self.assertEqual(doc["tests_ok"], 2)
        dev = doc["tests"][0]["points"][0]["device"]  # 1-byte reads: every one bounced
        if doc["environment"]["raw_direct_io"]:
            self.assertEqual(dev["bounced_ops"], dev["reads"])
        self.assertEqual(dev["reads"], doc["tests"][0]["params"]["reads"])

    def test_raw_refuses_what_is_not_a_device(self):
        r = run("run", "-t", "raw:" + self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("neither a block device nor an image file", r.stderr)
        r = run("run", "-t", "raw:" + os.path.join(self.dir, "missing.img"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("No such file", r.stderr)

    def test_mounted_loop_device_is_refused(self):
        if os.geteuid() != 0 or not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
            self.skipTest("needs root, losetup and mkfs.ext4")
        img = self.make_image()
        try:
            dev = subprocess.run(["losetup", "-f", "--show", img], capture_output=True,
                                 text=True, check=True).stdout.strip()
        except (subprocess.CalledProcessError, OSError) as e:
            self.skipTest(f"no loop device here: {e}")
        mnt = os.path.join(self.dir, "mnt")
        os.mkdir(mnt)
        link = os.path.join(self.dir, "disk-link")
        os.symlink(dev, link)
        try:
            subprocess.run(["mkfs.ext4", "-q", "-F", dev], check=True, capture_output=True)
            subprocess.run(["mount", dev, mnt], check=True, capture_output=True)
            try:
                for target in (dev, link, img):  # the device, a symlink to it, its image
                    r = run("run", "-t", "raw:" + target, "--tests", "B0", "--allow-destructive")
                    self.assertEqual(r.returncode, 2, (target, r.stderr))
                    self.assertIn("is mounted", r.stderr)
            finally:
                subprocess.run(["umount", mnt], check=True)
            r = run("run", "-q", "-t", "raw:" + dev, "--tests", "M1,seq", "--allow-destructive",
                    "--verify", "--size", "4M", "--runs", "1", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(self.load()["environment"]["raw_direct_io"])
        finally:
            subprocess.run(["losetup", "-d", dev])


class Probe(Base):
    """storscope probe (issue 19): read-only by default, --preserve puts the
    medium back, a counterfeit model is found, bad input writes nothing."""

    def image(self, size=64 << 20):
        img = os.path.join(self.dir, "card.img")
        with open(img, "wb") as f:
            for _ in range(size >> 20):
                f.write(os.urandom(1 << 20))
        return img

    def test_read_only_leaves_the_image_byte_identical(self):
        img = self.image()
        before = Raw.digest(img)
        r = run("probe", "raw:" + img, "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("not measured", r.stdout)
        self.assertIn("--allow-destructive", r.stdout)
        self.assertEqual(Raw.digest(img), before)
        doc = self.load()
        self.assertEqual(doc["tests"], [])
        self.assertFalse(doc["probe"]["destructive"])
        self.assertEqual(doc["probe"]["reported"]["capacity_bytes"], 64 << 20)

    def test_preserve_on_a_large_card(self):
        # issue 41.3.8: --preserve failed on any card of 64 GiB or more
        # ("buffer too small": 256 MiB of memory for the blocks to put back);
        # beyond that they go to a temporary file, said before the writing
        target = "sim:sd-consumer,capacity=64G"
        r = run("probe", target, "--allow-destructive", "--preserve", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("destructive steps write up to", r.stderr)
        self.assertIn("in a temporary file", r.stderr)
        self.assertIn("restored (--preserve)", r.stdout)
        pr = self.load()["probe"]
        self.assertEqual(pr["capacity"]["status"], "ok")
        self.assertEqual(pr["capacity"]["kind"], "genuine")
        self.assertTrue(pr["restored"])
        # a filesystem without room for it is refused before anything is written
        small = self.loop_mount("small", 16 << 20)
        try:
            env = dict(os.environ, TMPDIR=small)
            r = run("probe", target, "--allow-destructive", "--preserve", env=env)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("set TMPDIR to a filesystem with room", r.stderr)
            self.assertNotIn("probe of", r.stdout)
            self.assertEqual(os.listdir(small), ["lost+found"])
        finally:
            subprocess.run(["umount", small], capture_output=True)

    def test_no_allocation_units_are_found_in_an_image(self):
        # issue 41.3: a plain 8 MiB image gave "erase unit 32 KiB" and the
        # guideline to align to it in 2 of 3 tries (its filesystem's
        # extents); an image has no allocation units: said, not guessed
        img = self.image()
        for args in ((), ("--allow-destructive",)):
            with self.subTest(args=args):
                r = run("probe", "raw:" + img, *args, "-o", self.out)
                self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
                self.assertIn("read timing: not measurable: an image file", r.stdout)
                self.assertNotIn("Align partitions", r.stdout)
                pr = self.load()["probe"]
                self.assertEqual(pr["read_timing"]["status"], "not_measurable")
                self.assertFalse(pr["read_timing"]["visible"])
                if args:  # the capacity check still runs: a file can be checked
                    self.assertEqual(pr["open_aus"]["status"], "not_measurable")
                    self.assertEqual(pr["capacity"]["kind"], "genuine")

    def test_preserve_puts_every_byte_back_and_a_real_image_is_genuine(self):
        img = self.image()
        before = Raw.digest(img)
        r = run("probe", "raw:" + img, "--allow-destructive", "--preserve", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("genuine", r.stdout)
        self.assertIn("restored", r.stdout)
        self.assertEqual(Raw.digest(img), before)
        cap = self.load()["probe"]["capacity"]
        self.assertEqual((cap["kind"], cap["usable_bytes"]), ("genuine", 64 << 20))
        # without --preserve the probe's stamps stay: it said it would write
        r = run("probe", "raw:" + img, "--allow-destructive")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotEqual(Raw.digest(img), before)

    def test_counterfeit_models_are_found(self):
        for opts, kind, real in ((",fake=1G", "aliasing", 1 << 30),
                                 (",fake=1536M,fake_lost=1", "lost writes", 1536 << 20)):
            r = run("probe", "sim:sd-a2,capacity=8G" + opts, "--allow-destructive",
                    "-o", self.out)
            self.assertEqual(r.returncode, 1, r.stderr)  # counterfeit: exit 1
            self.assertIn("COUNTERFEIT", r.stdout)
            cap = self.load()["probe"]["capacity"]
            self.assertEqual(cap["kind"], kind)
            self.assertEqual(cap["claimed_bytes"], 8 << 30)
            self.assertTrue(0 <= cap["usable_bytes"] - real < cap["block_bytes"], cap)

    def test_open_allocation_units_and_the_guideline(self):
        r = run("probe", "sim:sd-consumer,capacity=2G,open_aus=2", "--allow-destructive",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        au = self.load()["probe"]["open_aus"]
        self.assertEqual((au["limited"], au["open_aus"], au["au_bytes"]), (True, 2, 4 << 20))
        self.assertIn("at most 2 files or streams at once", r.stdout)
        self.assertIn("Align partitions and files to 4 MiB", r.stdout)
        # raw flash has no controller: said, not failed
        r = run("probe", "sim:nor-spi,capacity=1M", "--allow-destructive", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.load()["probe"]["open_aus"]["status"], "not_applicable")

    def test_identity_from_the_cards_registers(self):
        img = self.image(8 << 20)
        fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                                "sysfs")
        sd = os.path.join(fixtures, "sd-sl16g")
        env = dict(os.environ, STORSCOPE_SYSFS_DEVICE=sd)
        r = run("probe", "raw:" + img, "-o", self.out, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ident = self.load()["probe"]["identity"]
        # storscope's decoding of the raw CID agrees with the kernel's
        kernel = {k: open(os.path.join(sd, k)).read().strip()
                  for k in ("name", "manfid", "oemid", "serial", "date")}
        self.assertEqual(ident["name"], kernel["name"])
        self.assertEqual(ident["manfid"], int(kernel["manfid"], 16))
        self.assertEqual(ident["oemid"], bytes.fromhex(kernel["oemid"][2:]).decode())
        self.assertEqual(ident["serial"], int(kernel["serial"], 16))
        self.assertEqual("%02d/%d" % (ident["month"], ident["year"]), kernel["date"])
        self.assertEqual((ident["csd_version"], ident["sd_spec"]), (2, "3.0x"))
        self.assertIn("SD card SL16G", r.stdout)
        # issue 45: TRAN_SPEED (CSD byte 3) is a rate a data line, and the
        # SCR's bus widths (byte 1, low nibble; bit 2: 4 bits) multiply it -
        # "up to 25 Mbit/s" was 4x low for a 4-bit card
        csd = bytes.fromhex(open(os.path.join(sd, "csd")).read().strip())
        scr = bytes.fromhex(open(os.path.join(sd, "scr")).read().strip())
        value = [0, 1.0, 1.2, 1.3, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 7.0, 8.0]
        per_line = value[(csd[3] >> 3) & 15] * 100e3 * 10 ** (csd[3] & 7)  # bit/s
        lines = 4 if scr[1] & 4 else 1
        self.assertEqual(lines, 4)
        self.assertEqual(ident["bus_lines"], lines)
        self.assertEqual(ident["rate_per_line_bytes_per_second"], round(per_line / 8))
        self.assertEqual(ident["max_rate_bytes_per_second"], round(per_line / 8) * lines)
        self.assertIn("up to %d Mbit/s a data line: %d Mbit/s (%.1f MB/s) on its 4-bit bus"
                      % (per_line / 1e6, per_line * lines / 1e6, per_line * lines / 8e6),
                      r.stdout)
        env["STORSCOPE_SYSFS_DEVICE"] = os.path.join(fixtures, "emmc-kernel-format")
        r = run("probe", "raw:" + img, "-o", self.out, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ident = self.load()["probe"]["identity"]
        self.assertEqual((ident["life_time_est_a"], ident["life_time_est_b"],
                          ident["pre_eol_info"]), (1, 2, 1))
        self.assertIn("life time estimate A 0-10 % used, B 10-20 % used", r.stdout)
        self.assertIn("pre-EOL: normal", r.stdout)
        # issue 45: an eMMC's EXT_CSD (here the debugfs text of a worn 5.1
        # part, laid out by hand from JESD84-B51): decoded with the test's
        # own offsets, and the image (not an MMC device) says why no ioctl
        worn = os.path.join(fixtures, "emmc-worn")
        env["STORSCOPE_SYSFS_DEVICE"] = worn
        r = run("probe", "raw:" + img, "-o", self.out, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        x = bytes.fromhex(open(os.path.join(worn, "ext_csd")).read().strip())
        ext = self.load()["probe"]["identity"]["ext_csd"]
        self.assertEqual(
            (ext["rev"], ext["version"], ext["capacity_bytes"], ext["cache_bytes"],
             ext["erase_group_bytes"], ext["firmware"], ext["life_time_est_a"],
             ext["life_time_est_b"], ext["pre_eol_info"], ext["source"]),
            (x[192], "5.1", int.from_bytes(x[212:216], "little") * 512,
             int.from_bytes(x[249:253], "little") * 1024, x[224] * 512 * 1024, x[254:262].hex(),
             x[268], x[269], x[267], "debugfs"))
        self.assertIn("EXT_CSD wear: life time estimate A 90-100 % used, B beyond its life; "
                      "pre-EOL: urgent", r.stdout)
        env["STORSCOPE_SYSFS_DEVICE"] = os.path.join(fixtures, "emmc-kernel-format")
        r = run("probe", "raw:" + img, "-o", self.out, env=env)
        self.assertIn("MMC_IOC_CMD ioctl failed", self.load()["probe"]["identity"]["ext_csd_not_read"])
        # issue 45: a USB card reader's disk printed "identity: 0 ?,
        # manufacturer ?, OEM ?, firmware ?, made ?" (its sysfs type is a
        # SCSI device type): the bridge's own vendor and model, and why the
        # card's registers are not there
        env["STORSCOPE_SYSFS_DEVICE"] = os.path.join(fixtures, "usb-reader")
        r = run("probe", "raw:" + img, "-o", self.out, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ident = self.load()["probe"]["identity"]
        self.assertEqual((ident["type"], ident["vendor"], ident["model"], ident["firmware"],
                          ident["card_registers_visible"]),
                         ("SCSI", "Generic-", "STORAGE DEVICE", "1206", False))
        self.assertNotIn("manufacturer ?", r.stdout)
        self.assertIn("behind a USB or SCSI bridge: vendor Generic-, model STORAGE DEVICE", r.stdout)
        # an image has no registers: nothing said, nothing invented
        env.pop("STORSCOPE_SYSFS_DEVICE")
        r = run("probe", "raw:" + img, "-o", self.out, env=env)
        self.assertNotIn("identity", self.load()["probe"])

    def test_a_pi_cards_sd_status_and_erase_sizes(self):
        # issue 45: the SD Status (sysfs ssr), preferred_erase_size and
        # erase_size were never read. The oracle decodes the fixture's 64
        # bytes here, by the SD specification's byte and bit places.
        pi = os.path.join(FIXTURES, "sysfs", "pi-sd")
        raw = bytes.fromhex(open(os.path.join(pi, "ssr")).read().strip())
        self.assertEqual(len(raw), 64)
        au_kib = [0, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 12288, 16384, 24576,
                  32768, 65536]
        want = {"bus_lines": 4 if raw[0] >> 6 == 2 else 1,
                "speed_class": [0, 2, 4, 6, 10][raw[8]],
                "au_bytes": au_kib[raw[10] >> 4] * 1024,
                "erase_aus": raw[11] << 8 | raw[12],
                "uhs_speed_grade": raw[14] >> 4,
                "video_speed_class": raw[15],
                "app_performance_class": raw[21] & 15,
                "discard": bool(raw[24] & 2)}
        self.assertEqual((want["speed_class"], want["au_bytes"]), (10, 4 << 20))
        env = dict(os.environ, STORSCOPE_SYSFS_DEVICE=pi)
        # a model whose reads show no boundary: nothing measures the AU, so
        # the guideline takes the card's word and says so
        r = run("probe", "sim:emmc-stm32u5,capacity=1G", "-o", self.out, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ident = self.load()["probe"]["identity"]
        for k, v in want.items():
            self.assertEqual(ident["ssr"][k], v, k)
        self.assertEqual(ident["preferred_erase_bytes"],
                         int(open(os.path.join(pi, "preferred_erase_size")).read()))
        self.assertEqual(ident["erase_bytes"], int(open(os.path.join(pi, "erase_size")).read()))
        self.assertEqual(ident["name"], open(os.path.join(pi, "name")).read().strip())
        self.assertIn("SD Status: Class 10, U1, V10, A1; allocation unit 4 MiB", r.stdout)
        self.assertIn("Align partitions and files to 4 MiB (the allocation unit the card "
                      "states in its SD Status; not measured)", r.stdout)
        # the boot card is mounted: its identity is still read (sysfs only,
        # the device untouched) and the probe proper refused
        if os.geteuid() != 0 or not shutil.which("mkfs.ext4"):
            self.skipTest("the mounted case needs root and mkfs.ext4 (a loop-mounted image)")
        os.remove(self.out)
        mnt = self.loop_mount("boot", 32 << 20)
        try:
            img = os.path.join(self.dir, "boot.img")
            dev = subprocess.run(["findmnt", "-n", "-o", "SOURCE", mnt], capture_output=True,
                                 text=True).stdout.strip()
            for target in (dev, img):
                r = run("probe", "raw:" + target, "-o", self.out, env=env)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("is mounted", r.stderr)
                self.assertIn("SD card SN32G", r.stdout)
                self.assertIn("SD Status: Class 10", r.stdout)
                self.assertIn("identity only", r.stdout)
                self.assertFalse(os.path.exists(self.out))
        finally:
            subprocess.run(["umount", mnt], check=True)

    def test_sigint_stops_restores_and_keeps_valid_json(self):
        # a model in real time: a merge takes its 0.6 s of wall time, so the
        # probe is still writing when the signal comes, whenever it comes
        p = subprocess.Popen([BIN, "probe", "sim:sd-consumer,capacity=2G,open_aus=3,clock=real",
                              "--allow-destructive", "--preserve", "-o", self.out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("stopped by a signal; every overwritten block put back", err)
        self.assertIn("medium restored", out)
        doc = self.load()
        self.assertEqual((doc["status"], doc["interrupted"]), ("interrupted", True))
        self.assertTrue(doc["probe"]["restored"])
        self.assertFalse(os.path.exists(self.out + ".partial"))

    def test_l1_collapses_with_more_streams_than_open_aus(self):
        # issue 19: three streams to three files on a card that keeps two AUs
        # open; with three open (or no limit) nothing is lost or late
        def l1(open_aus):
            r = run("run", "-q", "-t", "sim:sd-consumer,capacity=2G,open_aus=%d" % open_aus,
                    "--tests", "L1", "--duration", "5s", "-o", self.out)
            self.assertEqual(r.returncode, 0, r.stderr)
            return {p["params"]["mode"]: p["metrics"] for p in self.load()["tests"][0]["points"]}
        for mode, m in l1(3).items():
            self.assertEqual((m["records_lost"], m["records_late"]), (0, 0), mode)
        two = l1(2)
        for mode in ("direct", "mutex"):
            m = two[mode]
            self.assertGreater(m["records_lost"] + m["records_late"], m["records_produced"] // 2,
                               mode)
        # the I/O task writes one aggregate file: one AU, no collapse
        self.assertEqual((two["iotask"]["records_lost"], two["iotask"]["records_late"]), (0, 0))

    def test_run_and_report_take_the_probe_into_the_guidelines(self):
        # issue 19: the probe's page, AU and open-AU count become the run's
        # guidelines, checked against the files L1 kept open (three streams,
        # two open AUs: one too many)
        target = "sim:sd-consumer,capacity=256M,au=4M,open_aus=2"
        probe = os.path.join(self.dir, "probe.json")
        r = run("probe", target, "--allow-destructive", "-o", probe)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("run", "-t", target, "--tests", "L1", "--duration", "2s", "--probe", probe,
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for out in (r.stdout, run("report", self.out, "--probe", probe).stdout):
            self.assertIn("chunks of at least 16 KiB, the page storscope probe measured", out)
            self.assertIn("extents to 4 MiB, the allocation unit storscope probe measured", out)
            self.assertIn("at most 2 files at once", out)
            self.assertIn("writers kept 3 open", out)
        self.assertNotIn("warning", r.stderr)  # the probe was of this very target
        # without --probe the same results say none of it
        self.assertNotIn("storscope probe", run("report", self.out).stdout)
        # a probe of another target is applied, and said to be of another
        r = run("run", "-q", "-t", "sim:sd-consumer,capacity=256M", "--tests", "L1",
                "--duration", "1s", "--probe", probe, "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the probe file describes " + target, r.stderr)
        # a file without a probe section, or none: refused before anything runs
        for bad, msg in ((self.out, "has no probe section"), ("/nonexistent", "cannot read")):
            r = run("run", "-t", target, "--tests", "L1", "--probe", bad, "-o", probe + ".x")
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn(msg, r.stderr)
            self.assertFalse(os.path.exists(probe + ".x"))
            r = run("report", self.out, "--probe", bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn(msg, r.stderr)

    def test_bad_input_is_refused_and_writes_nothing(self):
        img = self.image(8 << 20)
        before = Raw.digest(img)
        cases = [
            (["probe"], "one TARGET"),
            (["probe", "raw:" + img, "--preserve"], "--preserve only matters"),
            (["probe", self.target], "give raw:DEVICE_OR_IMAGE or sim:PROFILE"),
            (["probe", "sim:emmc-stm32u5+sensorlog"], "drop '+sensorlog'"),
            (["probe", "raw:" + os.path.join(self.dir, "missing.img")], "missing.img"),
            (["probe", "raw:" + img, "--bogus"], "unknown option"),
        ]
        for args, msg in cases:
            r = run(*args, "-o", self.out)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr)
            self.assertFalse(os.path.exists(self.out))
        # an image too small to be a card: refused, untouched
        tiny = os.path.join(self.dir, "tiny.img")
        with open(tiny, "wb") as f:
            f.write(b"\xAA" * 8192)
        r = run("probe", "raw:" + tiny, "--allow-destructive", "-o", self.out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("too small to probe", r.stderr)
        self.assertEqual(open(tiny, "rb").read(), b"\xAA" * 8192)
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(Raw.digest(img), before)
        if os.geteuid() == 0:  # a mounted image (through its loop device) is refused
            mnt = self.loop_mount("m", 32 << 20)
            try:
                img2 = os.path.join(self.dir, "m.img")
                r = run("probe", "raw:" + img2, "--allow-destructive", "-o", self.out)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("is mounted", r.stderr)
                self.assertFalse(os.path.exists(self.out))
            finally:  # (the mounted ext4 writes its own image: no digest here)
                subprocess.run(["umount", mnt], check=True)
        # no permission to write the image: refused, untouched (as root, run
        # as nobody; root may write anything)
        os.chmod(img, 0o444)
        os.chmod(self.dir, 0o755)
        cmd = [BIN, "probe", "raw:" + img, "--allow-destructive"]
        if os.geteuid() == 0:
            if not shutil.which("setpriv"):
                self.skipTest("as root the no-permission case needs setpriv to drop to nobody")
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("ermission", r.stderr)
        self.assertEqual(Raw.digest(img), before)
