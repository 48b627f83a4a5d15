"""CLI tests: storscope fit and sim:@FILE, a profile fitted to a device's
results (issue 47, "calibrated from a real card"); run through test_cli.py."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


def profile_values(path):
    """A profile file's KEY=VALUE lines, times in ns and sizes in bytes as
    numbers (the file writes them so), the base as text."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            k, v = line.split("=", 1)
            out[k] = v if k in ("base", "capacity") else float(v[:-2] if v.endswith("ns") else v)
    return out


# the truths: a known profile with its parameters moved away from the base
# (each in the target's own units: us are 1e3 ns, M is 2^20 bytes/s)
US, MIB = 1e3, 1 << 20
TRUTHS = [
    ("emmc-stm32u5", "", ["B0,B2,M1"],
     {"cmd_read": 230 * US, "read_bw": 9 * MIB, "read_access": 120 * US, "cmd_write": 40 * US,
      "write_bw": 18 * MIB, "dip_bytes": 64 << 10, "dip_percent": 60}),
    ("sd-consumer", ",capacity=1G", ["B2,M1"],
     {"cmd_read": 400 * US, "read_bw": 30 * MIB, "read_access": 200 * US, "cmd_write": 200 * US,
      "write_bw": 10 * MIB}),
]


def target_of(base, extra, truth):
    def unit(k, v):
        if k in ("cmd_read", "read_access", "cmd_write"):
            return "%dus" % (v / US)
        if k in ("read_bw", "write_bw"):
            return "%dM" % (v / MIB)
        return "%d" % v
    return "sim:%s%s,%s" % (base, extra, ",".join("%s=%s" % (k, unit(k, v)) for k, v in truth.items()))


class Fit(Base):
    def fitted(self, base, extra, tests, truth):
        """(truth's results file, the fitted profile's values, fit's stdout)"""
        res = os.path.join(self.dir, base + ".json")
        r = run("run", "-q", "-t", target_of(base, extra, truth), "--tests", tests, "-o", res)
        self.assertEqual(r.returncode, 0, r.stderr)
        prof = os.path.join(self.dir, base + ".profile")
        f = run("fit", res, "--base", base, "-o", prof, "--points", timeout=900)
        self.assertEqual(f.returncode, 0, f.stderr)
        return res, profile_values(prof), f.stdout

    def test_a_model_fitted_back_recovers_its_parameters(self):
        # the issue: "a run on a known profile, fitted back, recovers its
        # parameters within 10 %" - on the study's eMMC (with a dip of its
        # own at another size than the base's) and on an SD card
        for base, extra, (tests,), truth in TRUTHS:
            with self.subTest(base=base):
                res, got, out = self.fitted(base, extra, tests, truth)
                self.assertEqual(got["base"], base)
                for k, want in truth.items():
                    self.assertLess(abs(got[k] / want - 1), 0.10, (k, got[k], want, out))
                # a base's dip the device does not have is taken away, not kept
                if "dip_bytes" not in truth:
                    self.assertEqual(got.get("dip_bytes", 0), 0)
                # what it does not fit is said, with why
                self.assertIn("not fitted: page_prog stays the base's", out)
                if extra:
                    self.assertEqual(got["capacity"], extra.split("=")[1])
                # the saved profile is a medium: its B2 within 5 % of the
                # truth's at every point, by this test's own comparison
                again = os.path.join(self.dir, "again.json")
                r = run("run", "-q", "-t", "sim:@" + os.path.join(self.dir, base + ".profile"),
                        "--tests", "B2", "-o", again)
                self.assertEqual(r.returncode, 0, r.stderr)
                pts = lambda doc: {(p["name"], p["params"]["chunk_bytes"]): p["runs"]["mean"]
                                   for t in doc["tests"] if t["id"] == "B2" for p in t["points"]}
                a, b = pts(self.load(res)), pts(self.load(again))
                self.assertEqual(set(a), set(b))
                worst = max(abs(b[k] / a[k] - 1) for k in a)
                self.assertLess(worst, 0.05, worst)
                # --points prints each point's error, which this recomputes
                m = re.search(r"\n  B2   write +2097152 +(.*?) +(.*?) +([-+][\d.]+) %", out)
                self.assertTrue(m, out)

    def test_a_profile_file_is_a_medium_like_any_other(self):
        prof = os.path.join(self.dir, "card.profile")
        with open(prof, "w") as f:
            f.write("# a card\nbase=sd-a2\n\ncmd_read=300us\nread_bw=12M\n")
        # options and a store after it, as after any sim: profile
        r = run("run", "-q", "-t", "sim:@%s,capacity=256M+sensorlog" % prof, "--tests", "B0",
                "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.load()["run"]["target"],
                         "sim:sd-a2,cmd_read=300us,read_bw=12M,capacity=256M+sensorlog")
        # bad files: the reason, exit 2, no results
        for text, why in (("base=sd-a2\ncmd read=5us\n", "card.profile:2: expected KEY=VALUE"),
                          ("cmd_read=5us\n", "no base=PROFILE line"),
                          ("base=no-such-card\n", "card.profile:1: no profile 'no-such-card'"),
                          ("base=sd-a2\nread_bw=1,2\n", "card.profile:2: expected KEY=VALUE"),
                          # a key or a value the simulator refuses, named with its line
                          # (it said "sim: unknown option 'bogus'", no file)
                          ("base=sd-a2\nbogus=3\n",
                           "card.profile:2: no profile parameter 'bogus'"),
                          ("base=sd-a2\n# ok\ncmd_read=fast\n",
                           "card.profile:3: bad value 'fast' for 'cmd_read'")):
            with self.subTest(text=text):
                with open(prof, "w") as f:
                    f.write(text)
                if os.path.exists(self.out):
                    os.remove(self.out)
                r = run("run", "-t", "sim:@" + prof, "--tests", "B0", "-o", self.out)
                self.assertEqual(r.returncode, 2)
                self.assertIn(why, r.stderr)
                self.assertFalse(os.path.exists(self.out))
        r = run("run", "-t", "sim:@" + os.path.join(self.dir, "none.profile"), "--tests", "B0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read the profile", r.stderr)

    def test_fit_refuses_what_it_cannot_fit(self):
        res = os.path.join(self.dir, "b0.json")
        r = run("run", "-q", "-t", "sim:emmc-stm32u5", "--tests", "B0", "-o", res)
        self.assertEqual(r.returncode, 0, r.stderr)
        for args, why in (([res], "has no B2 reads and writes"),
                          ([res, "--base", "nor-spi"], "nor-spi is raw flash"),
                          ([res, "--base", "floppy"], "bad --base 'floppy'"),
                          ([os.path.join(FIXTURES, "README.md")], "not valid JSON"),
                          ([], "fit takes one results file")):
            with self.subTest(args=args):
                r = run("fit", *args, "-o", os.path.join(self.dir, "x.profile"))
                self.assertEqual(r.returncode, 2, r.stdout)
                self.assertIn(why, r.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.dir, "x.profile")))

    def card_results(self):
        """The second truth's model run, as a card's results to fit: their path."""
        base, extra, (tests,), truth = TRUTHS[1]
        res = os.path.join(self.dir, "card.json")
        r = run("run", "-q", "-t", target_of(base, extra, truth), "--tests", tests, "-o", res)
        self.assertEqual(r.returncode, 0, r.stderr)
        return res

    def test_plan_on_a_devices_results_fits_the_medium_first(self):
        res = self.card_results()
        plan = os.path.join(self.dir, "plan.json")
        r = run("plan", "-q", "--streams", "imu:1000Hz:12B", "--medium", res, "--ram", "4K",
                "-d", "5s", "--confirm-for", "1m", "-o", plan, timeout=900)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(plan) as f:
            doc = json.load(f)
        self.assertEqual(doc["spec"]["medium_from"]["kind"], "fitted")
        self.assertEqual(doc["spec"]["medium_from"]["file"], res)
        self.assertLess(doc["spec"]["medium_from"]["fit_rms_error_percent"], 2)
        medium = doc["spec"]["medium"]
        self.assertTrue(medium.startswith("sim:sd-consumer,capacity=1G,cmd_read="), medium)
        got = dict(kv.split("=") for kv in medium.split(",")[1:])
        self.assertLess(abs(float(got["read_bw"]) / TRUTHS[1][3]["read_bw"] - 1), 0.10)
        # every run the plan made was on that medium
        self.assertTrue(all(c["target"].startswith(medium) for c in doc["configurations"]),
                        medium)

    def test_results_the_model_cannot_describe_are_said_so(self):
        # the dirty world: a directory on this machine's disk, through its
        # page cache (GiB/s "writes"): the fit is far off, and says so; a
        # plan on it is refused rather than made on a model of nothing
        res = os.path.join(self.dir, "dir.json")
        r = run("run", "-q", "-t", self.target, "--tests", "B2", "-o", res)
        self.assertEqual(r.returncode, 0, r.stderr)
        f = run("fit", res, "-o", os.path.join(self.dir, "dir.profile"), timeout=900)
        self.assertEqual(f.returncode, 0, f.stderr)
        m = re.search(r"within ([\d.]+) % \(rms\)", f.stdout)
        self.assertTrue(m and float(m.group(1)) > 25, f.stdout)
        self.assertIn("it does not describe this device", f.stderr)
        plan = os.path.join(self.dir, "plan.json")
        r = run("plan", "-q", "--streams", "imu:100Hz:12B", "--medium", res, "--ram", "4K",
                "-d", "2s", "-o", plan, timeout=900)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("a plan on it would not be that device's", r.stderr)
        self.assertFalse(os.path.exists(plan))

    def test_a_probe_adds_what_it_measured(self):
        # --probe: the page, allocation unit and open-AU limit the probe
        # measured on a card whose answers are known join the profile; a
        # file without a probe section is refused with the reason
        probe = os.path.join(self.dir, "probe.json")
        r = run("probe", "sim:sd-consumer,capacity=2G,au=128K,open_aus=4", "--allow-destructive",
                "-o", probe)
        self.assertEqual(r.returncode, 0, r.stderr)
        res = self.card_results()
        prof = os.path.join(self.dir, "card.profile")
        f = run("fit", res, "--probe", probe, "-o", prof, "-q", timeout=900)
        self.assertEqual(f.returncode, 0, f.stderr)
        got = profile_values(prof)
        self.assertEqual((got["page_bytes"], got["au"], got["open_aus"]), (16384, 131072, 4))
        r = run("fit", res, "--probe", res, "-o", prof + "2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no probe section", r.stderr)
        self.assertFalse(os.path.exists(prof + "2"))

    def test_ctrl_c_leaves_nothing_behind(self):
        # a fit stopped by Ctrl-C: exit 130, no profile, and none of its
        # model runs' files (a wait the signal cut short used to leave them)
        res = self.card_results()
        prof = os.path.join(self.dir, "card.profile")
        for wait in (1, 3):
            with self.subTest(wait=wait):
                p = subprocess.Popen([BIN, "fit", res, "-o", prof], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, TMPDIR=self.dir))
                time.sleep(wait)
                p.send_signal(signal.SIGINT)
                _, err = p.communicate(timeout=300)
                self.assertEqual(p.returncode, 130, err)
                self.assertIn("stopped by signal; nothing saved", err)
                self.assertFalse(os.path.exists(prof))
                self.assertEqual([n for n in os.listdir(self.dir) if n.startswith("storscope-fit")],
                                 [])
