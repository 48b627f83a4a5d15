"""CLI tests: storscope plan (run through test_cli.py)."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


class Plan(Base):
    """storscope plan (issue 47): configurations run as L1, judged and
    ranked; each figure checked against the run that measures it again
    and the ranking recomputed here."""

    STREAMS = "imu:1000Hz:12B,env:1Hz:32B"

    def plan(self, *args, env=None):
        # the front's day alone is its own test's: the others judge the
        # sweep (a day of each front configuration would take minutes)
        env = dict(os.environ, TMPDIR=self.dir) if env is None else env
        if "--confirm-for" not in args:
            args = args + ("--confirm-for", "0")
        return run("plan", *args, env=env, timeout=600)

    def load_plan(self, path):
        with open(path) as f:
            doc = json.load(f)
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                               "storscope-plan.schema.json")) as f:
            jsonschema.validate(doc, json.load(f), cls=jsonschema.Draft202012Validator)
        return doc

    def no_leftovers(self):
        left = [n for n in os.listdir(self.dir) if n.startswith("storscope-plan.")]
        self.assertEqual(left, [], "the plan left its runs' files behind")

    def test_bad_specs_are_refused_before_anything_runs(self):
        cases = [
            (["--streams", "imu:0Hz:12B", "--ram", "16K"], "rate must be 1 to 1000000 Hz"),
            (["--streams", "imu:1000Hz:300B", "--ram", "16K"], "a record must be 1 to 255 B"),
            (["--streams", "imu:1000Hz:12B:burst=0", "--ram", "16K"], "imu's burst must be 1 to 100000"),
            (["--streams", "imu:1000Hz:12B:jitter=4", "--ram", "16K"], "no such stream option"),
            (["--streams", "imu", "--ram", "16K"], "expected NAME:RATEHz:SIZEB"),
            (["--streams", "a:1Hz:1B,a:2Hz:2B", "--ram", "16K"], "two streams are named 'a'"),
            (["--streams", "imu:1Hz:1B", "--ram", "100"], "bad --ram '100'"),
            (["--streams", "imu:1Hz:1B"], "needs --streams and --ram"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--medium", "sim:emmc-stm32u5+sensorlog"],
             "the plan chooses the store"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--medium", "posix:/tmp"],
             "simulated medium alone"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--medium", "sim:nope"], "no profile 'nope'"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--lifetime", "5"], "bad --lifetime '5'"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--lifetime", "10m"], "bad --lifetime"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--lifetime", "600y"], "500 years"),
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--repeat", "0"], "--repeat"),
            # a parameter only the run can check: its first run fails alone
            (["--streams", "imu:1Hz:1B", "--ram", "4K", "--medium", "sim:emmc-stm32u5,bogus=1",
              "-d", "2s"], "unknown option 'bogus'"),
        ]
        for args, said in cases:
            with self.subTest(args=args):
                r = self.plan(*args, "-o", self.out)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(said, r.stderr)
                self.assertFalse(os.path.exists(self.out))
                self.no_leftovers()

    def test_the_plan_ranks_what_it_measured_and_its_command_measures_it_again(self):
        r = self.plan("--streams", self.STREAMS, "--ram", "4K", "-d", "20s", "-j", "2",
                      "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.no_leftovers()
        doc = self.load_plan(self.out)
        cfgs = doc["configurations"]
        payload = 1000 * 12 + 1 * 32  # B/s, from the streams as given
        self.assertEqual(doc["spec"]["payload_bytes_per_second"], payload)
        self.assertEqual(doc["runs"] * 3, len(cfgs))
        self.assertTrue(any(c["store"].startswith("sensorlog") for c in cfgs))
        self.assertEqual({c["sync_interval_ns"] for c in cfgs}, {500 * 10**6, 250 * 10**6, 62500000})
        for c in cfgs:
            self.assertTrue(c["ran"], c)
            self.assertEqual(c["ram_bytes"], c["buffer_bytes"] + c["store_ram_bytes"])
            # what a cut takes, measured: when nothing is lost, at least an
            # interval's records (less a record of each stream, as they
            # fall), at most the streams' bytes over the oldest record's
            # wait (checked on the runs below, whose waits the results give)
            if c["lossless"]:
                self.assertGreaterEqual(c["at_risk_bytes"],
                                        payload * c["sync_interval_ns"] // 10**9 - 12 - 32, c)
            fits = (c["records_lost"] == 0 and c["records_late"] == 0 and c["records_produced"] > 0
                    and c["ram_bytes"] <= 4096 and c["at_risk_bytes"] <= payload * 1
                    and c.get("power_cuts_held") is not False)
            self.assertEqual(c["fits"], fits, c)
        # the ranking, recomputed: fitting ones by worst stall, RAM, risk
        group = [0 if c["fits"] else 1 if c["lossless"] else 2 for c in cfgs]
        self.assertEqual(group, sorted(group))
        key = [(c["worst_stall_ns"], c["ram_bytes"], c["at_risk_bytes"]) for c in cfgs if c["fits"]]
        self.assertEqual(key, sorted(key))
        self.assertEqual(doc["recommended"], 1)
        # no currents cited for this medium: no energy, not a made-up one
        self.assertFalse(doc["spec"]["medium_energy_modelled"])
        self.assertTrue(all(c["energy_per_day_j"] is None and c["battery_days"] is None
                            for c in cfgs))
        # the front: fitting, and dominated by no other fitting one
        fit = [c for c in cfgs if c["fits"]]
        for c in cfgs:
            dominated = any(all(o[k] <= c[k] for k in ("ram_bytes", "worst_stall_ns", "at_risk_bytes"))
                            and any(o[k] < c[k] for k in ("ram_bytes", "worst_stall_ns", "at_risk_bytes"))
                            for o in fit if o is not c)
            self.assertEqual(c["front"], c["fits"] and not dominated, c)
        self.assertTrue(cfgs[0]["front"])
        self.assertIn("recommended: %s, %s writer" % (cfgs[0]["store"], cfgs[0]["writer"]), r.stdout)
        # the recommended one and the best sensorlog one, measured again by
        # the command the plan gives: the same figures, to the record
        again = [cfgs[0], next(c for c in cfgs if c["store"].startswith("sensorlog"))]
        for c in again:
            with self.subTest(store=c["store"], writer=c["writer"]):
                l1 = os.path.join(self.dir, "again.json")
                words = shlex.split(c["command"])
                self.assertEqual(words[:2], ["storscope", "run"])
                words = [BIN] + words[1:-1] + [l1]
                p = subprocess.run(words, capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr)
                d = self.load(l1)
                pt = next(p for p in d["tests"][0]["points"] if p["params"]["mode"] == c["writer"])
                m = pt["metrics"]
                self.assertEqual(m["records_lost"], c["records_lost"])
                self.assertEqual(m["records_produced"], c["records_produced"])
                self.assertEqual(m["worst_stall_ns"], c["worst_stall_ns"])
                self.assertEqual(m["required_buffer_bytes"], c["backlog_peak_bytes"])
                self.assertEqual(d["environment"].get("sensorlog_ram_bytes", 0), c["store_ram_bytes"])
                self.assertEqual(m["at_risk_peak_bytes"], c["at_risk_bytes"])
                wait = pt["latency"]["record_to_durable"]["max_ns"]  # the oldest record's
                self.assertLessEqual(c["at_risk_bytes"],
                                     -(-payload * wait // 10**9) + 12 + 32 + 12, c)

    def test_the_mediums_energy_ranks_the_front_and_gives_the_battery_days(self):
        # issue 47: energy. On SPI NOR (the W25Q128JV's currents) each
        # configuration says what the medium drew, over a day and in days
        # of a battery; energy joins the front's dimensions and the ranking
        r = self.plan("--streams", self.STREAMS, "--medium", "sim:nor-spi", "--ram", "16K",
                      "-d", "20s", "--power-cuts", "0", "--battery", "2000mAh@3.7V", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load_plan(self.out)
        self.assertTrue(doc["spec"]["medium_energy_modelled"])
        battery = 2.0 * 3600 * 3.7  # 2 Ah at 3.7 V, joules
        self.assertAlmostEqual(doc["spec"]["battery_j"], battery, places=6)
        cfgs = doc["configurations"]
        for c in cfgs:
            self.assertGreater(c["energy_nj"], 0, c)
            self.assertAlmostEqual(c["energy_per_day_j"], c["energy_nj"] / 1e9 * 86400 / 20,
                                   delta=1e-9 * c["energy_per_day_j"])
            self.assertAlmostEqual(c["battery_days"], battery / c["energy_per_day_j"],
                                   delta=1e-9 * c["battery_days"])
        # the writers do not draw alike: the energy is the run's, not a constant
        self.assertGreater(len({c["energy_nj"] for c in cfgs}), 3)
        keys = ("ram_bytes", "worst_stall_ns", "at_risk_bytes", "energy_nj")
        fit = [c for c in cfgs if c["fits"]]
        for c in cfgs:
            dominated = any(all(o[k] <= c[k] for k in keys) and any(o[k] < c[k] for k in keys)
                            for o in fit if o is not c)
            self.assertEqual(c["front"], c["fits"] and not dominated, c)
        rank = [tuple(c[k] for k in ("worst_stall_ns", "ram_bytes", "at_risk_bytes", "energy_nj"))
                for c in fit]
        self.assertEqual(rank, sorted(rank))
        self.assertTrue(cfgs[0]["front"])
        self.assertIn("the medium draws %.3g J a day" % cfgs[0]["energy_per_day_j"], r.stdout)
        self.assertIn("the battery lasts %.0f days for the medium alone" % cfgs[0]["battery_days"],
                      r.stdout)
        rep = run("report", self.out)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        line = rep.stdout.split("recommended: ", 1)[1].split("\n")[0]
        self.assertTrue(line.endswith("%.3g J a day" % cfgs[0]["energy_per_day_j"]), line)
        # measured again by its command: the same energy, to the nanojoule;
        # and with every busy current 20 mA and none at standby it is the
        # device's busy time at 20 mA x 3.3 V, worked out here
        words = shlex.split(cfgs[0]["command"])
        l1 = os.path.join(self.dir, "again.json")
        for currents in ("", ",i_read=20mA,i_program=20mA,i_erase=20mA,i_idle=0mA"):
            w = [BIN] + words[1:-1] + [l1]
            w[4] = w[4].replace("sim:nor-spi", "sim:nor-spi" + currents, 1)
            p = subprocess.run(w, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            pt = next(q for q in self.load(l1)["tests"][0]["points"]
                      if q["params"]["mode"] == cfgs[0]["writer"])
            if not currents:
                self.assertEqual(pt["device"]["energy_nj"], cfgs[0]["energy_nj"])
            else:
                self.assertAlmostEqual(pt["device"]["energy_nj"],
                                       3.3 * 0.020 * pt["device"]["device_busy_ns"], delta=1)
        # a bad battery is refused before anything runs
        for bad in ("2000mAh", "0mAh@3.7V", "2000mAh@0V", "2000@3.7V", "2000mAh@3.7VV", "2Wh@3V"):
            with self.subTest(battery=bad):
                r = self.plan("--streams", self.STREAMS, "--ram", "4K", "--battery", bad,
                              "-o", self.out + ".bad")
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("bad --battery '%s'" % bad, r.stderr)
                self.assertFalse(os.path.exists(self.out + ".bad"))
        self.no_leftovers()

    def test_the_fronts_power_cuts_keep_what_was_synced(self):
        # issue 47: data at risk at a power cut, checked by cutting power.
        # Each sensorlog configuration on the front runs again with the
        # power cut three times inside its writer's run; the store must
        # mount with every synced byte, and what the logger held unsynced
        # then must be within the plan's figure. Bare extents: no store to
        # mount, said so.
        r = self.plan("--streams", self.STREAMS, "--medium", "sim:nor-spi", "--ram", "16K",
                      "-d", "20s", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.no_leftovers()
        cfgs = self.load_plan(self.out)["configurations"]
        front = [c for c in cfgs if c["front"]]
        log = [c for c in front if c["store"].startswith("sensorlog")]
        self.assertTrue(log, "no sensorlog configuration on the front to cut")
        self.assertRegex(r.stderr, r"storscope: plan: checking %d configurations? on the front: "
                                   r"%d power cuts\n" % (len(front), 3 * len(log)))
        for c in front:
            if not c["store"].startswith("sensorlog"):
                self.assertIsNone(c["power_cuts_held"], c)
                self.assertNotIn("power_cuts", c)
                continue
            self.assertTrue(c["power_cuts_held"], c)
            cuts = c["power_cuts"]
            self.assertEqual(len(cuts), 3)
            self.assertEqual([x["after_commands"] for x in cuts],
                             sorted({x["after_commands"] for x in cuts}))
            for x in cuts:
                self.assertTrue(x["cut"] and x["synced_data_kept"], x)
                self.assertLessEqual(x["at_risk_bytes"], c["at_risk_bytes"])
                self.assertGreaterEqual(x["at_risk_bytes"], x["kept_bytes"] - x["durable_bytes"])
                self.assertLessEqual(x["at_ns"], 20 * 10**9)
            self.assertEqual([x["at_ns"] for x in cuts], sorted(x["at_ns"] for x in cuts))
        for c in cfgs:
            if not c["front"]:
                self.assertNotIn("power_cuts", c)
        # a cut's command makes that cut again: the same figures
        x = log[0]["power_cuts"][1]
        words = shlex.split(x["command"])
        self.assertIn("cut_after=%d" % x["after_commands"], words[4])
        cut = os.path.join(self.dir, "cut.json")
        p = subprocess.run([BIN] + words[1:-1] + [cut], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 1, p.stderr)  # the run met the cut
        self.assertIn("holds every synced byte", p.stderr)
        d = self.load(cut)
        self.assertTrue(d["power_cut"]["synced_data_kept"])
        pt = next(q for q in d["tests"][0]["points"] if q["name"] == "at_failure")
        self.assertEqual(pt["params"]["mode"], log[0]["writer"])
        self.assertEqual((pt["metrics"]["failed_at_ns"], pt["metrics"]["kept_bytes"],
                          pt["metrics"]["durable_bytes"], pt["metrics"]["at_risk_bytes"]),
                         (x["at_ns"], x["kept_bytes"], x["durable_bytes"], x["at_risk_bytes"]))
        # the text: what the recommended one's cuts found, or why not
        if cfgs[0]["store"].startswith("sensorlog"):
            self.assertIn("power cut 3 times in its run: every synced byte came back", r.stdout)
        else:
            self.assertIn("power cuts: not checked (bare extents", r.stdout)
        # --power-cuts 0: none made, none claimed
        r = self.plan("--streams", self.STREAMS, "--medium", "sim:nor-spi", "--ram", "16K",
                      "-d", "20s", "--power-cuts", "0", "-q", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for c in self.load_plan(self.out)["configurations"]:
            self.assertNotIn("power_cuts", c)
            self.assertIsNone(c.get("power_cuts_held"))

    def test_the_front_runs_alone_for_longer_and_its_worst_hour_is_said(self):
        # issue 47: loss over a simulated day and its worst hour. On a 1 GiB
        # eMMC the sweep's 20 s see no garbage collection; 8 hours of the
        # streams fill it far enough that collection stalls of 0.15-0.4 s
        # begin, and front configurations the sweep found lossless lose
        # records there: they drop out, the front they leave is checked
        # in turn, and the one recommended is lossless over the 8 hours
        medium = "sim:emmc-stm32u5,capacity=1G"
        r = self.plan("--streams", self.STREAMS, "--medium", medium, "--ram", "4K", "-d", "20s",
                      "--confirm-for", "8h", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.no_leftovers()
        doc = self.load_plan(self.out)
        self.assertEqual(doc["spec"]["confirm_for_ns"], 8 * 3600 * 10**9)
        cfgs = doc["configurations"]
        rec = cfgs[doc["recommended"] - 1]
        self.assertTrue(rec["day"]["lossless"], rec)
        self.assertEqual(rec["day"]["records_lost"] + rec["day"]["records_late"], 0)
        self.assertIn("alone for longer: 0 of %d records lost or late" % rec["day"]["records_produced"],
                      r.stdout)
        days = [c for c in cfgs if "day" in c]
        dropped = [c for c in days if c["day"]["ran"] and not c["day"]["lossless"]]
        self.assertTrue(dropped, "no configuration the longer run dropped")
        for c in days:
            d = c["day"]
            self.assertEqual(d["duration_ns"], 8 * 3600 * 10**9)
            if not d["ran"]:  # its run could not be made: said, and it does not fit
                self.assertIn("not enough space", d["error"])
                self.assertFalse(c["fits"], c)
                continue
            self.assertEqual(d["records_produced"], 8 * 3600 * 1001)  # 1 kHz and 1 Hz
            self.assertEqual(c["fits"] and True, c["fits"] and d["lossless"])
            h = d["worst_hour"]
            self.assertLess(h["index"], 8)
            self.assertLessEqual(h["records_lost"], d["records_lost"] + d["records_late"])
            self.assertLessEqual(h["worst_stall_ns"], d["worst_stall_ns"])
            self.assertEqual(sum(d["records_lost_by_stream"].values()), d["records_lost"], d)
            if not d["lossless"]:
                self.assertFalse(c["fits"], c)
                self.assertGreater(h["records_lost"], 0)
                self.assertEqual(c["records_lost"], 0, "lossless in the sweep: the day dropped it")
        # a dropped one's command makes its day again: the same figures
        c = dropped[0]
        words = shlex.split(c["day"]["command"])
        self.assertIn("--writer", words)
        self.assertEqual(words[words.index("--writer") + 1], c["writer"])
        day = os.path.join(self.dir, "day.json")
        p = subprocess.run([BIN] + words[1:-1] + [day], capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        pts = self.load(day)["tests"][0]["points"]
        self.assertEqual([q["params"]["mode"] for q in pts], [c["writer"]])  # that writer alone
        m = pts[0]["metrics"]
        self.assertEqual((m["records_lost"], m["worst_hour_index"], m["worst_hour_records_lost"],
                          m["worst_stall_ns"]),
                         (c["day"]["records_lost"], c["day"]["worst_hour"]["index"],
                          c["day"]["worst_hour"]["records_lost"], c["day"]["worst_stall_ns"]))
        self.assertEqual({s: m["records_lost_" + s] for s in c["day"]["records_lost_by_stream"]},
                         c["day"]["records_lost_by_stream"])
        # bad --confirm-for: refused before anything runs
        for bad in ("5", "31d", "-1h"):
            r = self.plan("--streams", self.STREAMS, "--ram", "4K", "--confirm-for", bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("bad --confirm-for '%s'" % bad, r.stderr)

    def test_a_card_that_loses_synced_data_at_a_cut_fits_nothing(self):
        # a counterfeit NOR (2 MiB real of 16, writes past them dropped):
        # L1 loses nothing on it - it never reads back - so only the cuts
        # show that what sensorlog synced is gone; no configuration fits
        medium = "sim:nor-spi,fake=2M,fake_lost=1"
        r = self.plan("--streams", "imu:1000Hz:12B,ppg:100Hz:24B,env:1Hz:64B", "--medium", medium,
                      "--ram", "16K", "-d", "5m", "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stderr, r"no configuration fits: power cuts in the runs of \d+ "
                                   r"configurations lost data a sync had made durable")
        doc = self.load_plan(self.out)
        self.assertIsNone(doc["recommended"])
        failed = [c for c in doc["configurations"] if c.get("power_cuts_held") is False]
        self.assertTrue(failed)
        for c in failed:
            self.assertFalse(c["fits"], c)
            self.assertTrue(c["lossless"], c)  # L1 alone would have recommended it
            self.assertTrue(any(x["cut"] and not x["synced_data_kept"] for x in c["power_cuts"]))
        self.assertFalse(any(c["fits"] for c in doc["configurations"]
                             if c["store"].startswith("sensorlog")))

    def test_a_burst_needs_ram_for_all_of_it(self):
        # 1 kHz x 12 B read out 256 at a time: 3 KiB land at once every
        # 256 ms. In 20 s, 78 whole bursts arrive (the 79th is due at
        # 20.223 s); a direct writer whose buffer holds b // 12 records
        # loses the rest of every burst, and none once a burst fits
        r = self.plan("--streams", "imu:1000Hz:12B:burst=256", "--ram", "4K", "-d", "20s",
                      "-j", "2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("imu 1000 Hz x 12 B in bursts of 256", r.stdout)
        doc = self.load_plan(self.out)
        self.assertEqual(doc["spec"]["streams"][0]["burst"], 256)
        direct = [c for c in doc["configurations"]
                  if c["store"] == "bare extents" and c["writer"] == "direct"]
        self.assertTrue(direct)
        for c in direct:
            b = c["buffer_bytes"]
            self.assertEqual(c["records_produced"], 78 * 256, c)
            self.assertEqual(c["records_lost"], 78 * max(0, 256 - b // 12), c)
        # the same rate, steady: no buffer of the plan loses a record
        r = self.plan("--streams", "imu:1000Hz:12B", "--ram", "4K", "-d", "20s", "-j", "2",
                      "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        steady = [c for c in self.load_plan(self.out)["configurations"]
                  if c["store"] == "bare extents" and c["writer"] == "direct"]
        self.assertEqual({c["records_lost"] for c in steady}, {0})

    def test_a_noisy_medium_is_judged_on_its_worst_seed(self):
        # background stalls drawn from the seed: one seed's figures are one
        # draw. Each run is made with seeds 1, 2 and 3, and a configuration
        # stands on the worst of them - checked here against the three runs
        # of its command, one a seed
        medium = "sim:emmc-stm32u5,stalls=2:50ms"
        r = self.plan("--streams", "imu:1000Hz:12B", "--medium", medium, "--ram", "2K",
                      "-d", "20s", "-j", "2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("each run with 3 seeds (the medium is noisy", r.stdout)
        self.no_leftovers()
        doc = self.load_plan(self.out)
        self.assertEqual(doc["repeats"], 3)
        self.assertTrue(doc["spec"]["medium_noisy"])
        cfgs = doc["configurations"]
        for c in cfgs:
            self.assertEqual(c["seeds_run"], 3, c)
            self.assertEqual(c["lossless"], c["seeds_lossless"] == 3, c)
            self.assertTrue(not c["fits"] or c["seeds_lossless"] == 3, c)
        # lossless with some seeds only: what one seed would have called
        # fitting or not by the luck of its draw
        unsteady = [c for c in cfgs if 0 < c["seeds_lossless"] < 3]
        self.assertTrue(unsteady, "no configuration that the seed decides")
        for c in (cfgs[0], unsteady[0]):
            with self.subTest(store=c["store"], writer=c["writer"], buffer=c["buffer_bytes"]):
                words = shlex.split(c["command"])
                self.assertIn("--seed", words)
                self.assertEqual(words[words.index("--seed") + 1], str(c["worst_seed"]))
                seen = []
                for seed in (1, 2, 3):
                    w = list(words)
                    w[w.index("--seed") + 1] = str(seed)
                    l1 = os.path.join(self.dir, "again.json")
                    w = [BIN] + w[1:-1] + [l1]
                    p = subprocess.run(w, capture_output=True, text=True, timeout=300)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    pt = next(x for x in self.load(l1)["tests"][0]["points"]
                              if x["params"]["mode"] == c["writer"])
                    seen.append(pt["metrics"])
                self.assertEqual(c["records_lost"], max(m["records_lost"] for m in seen))
                self.assertEqual(c["records_produced"], min(m["records_produced"] for m in seen))
                self.assertEqual(c["worst_stall_ns"], max(m["worst_stall_ns"] for m in seen))
                self.assertEqual(c["backlog_peak_bytes"],
                                 max(m["required_buffer_bytes"] for m in seen))
                self.assertEqual(c["seeds_lossless"],
                                 sum(m["records_lost"] == 0 and m["records_late"] == 0 for m in seen))
                stalls = [m["worst_stall_ns"] for m in seen]
                self.assertEqual(c["worst_seed"], 1 + stalls.index(max(stalls)))
        # a noiseless medium: one seed, as before; --repeat asks for more
        r = self.plan("--streams", "imu:1000Hz:12B", "--ram", "2K", "-d", "5s", "-j", "2",
                      "-o", self.out)
        self.assertEqual(self.load_plan(self.out)["repeats"], 1)
        r = self.plan("--streams", "imu:1000Hz:12B", "--ram", "2K", "-d", "5s", "-j", "2",
                      "--repeat", "2", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual({c["seeds_run"] for c in self.load_plan(self.out)["configurations"]}, {2})

    def test_a_small_nor_is_planned_with_the_log_that_wraps(self):
        # 150 s of the streams need more than bare extents can hold on a
        # 16 MiB NOR (L1 sets aside 128 KiB a second): those runs are
        # refused and listed as not run; sensorlog's log wraps and is
        # planned (before, L1 refused it too, and the plan stopped)
        r = self.plan("--streams", "imu:1000Hz:12B,ppg:100Hz:24B", "--medium", "sim:nor-spi",
                      "--ram", "16K", "-d", "150s", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"27 of 108 runs failed \(listed as not run\); the first: "
                                   r"sim:nor-spi: not enough space")
        self.assertIn("bare extents: 0 of 81 fit; none ran", r.stdout)
        doc = self.load_plan(self.out)
        cfgs = doc["configurations"]
        self.assertTrue(cfgs[0]["fits"] and cfgs[0]["store"].startswith("sensorlog"))
        self.assertEqual({c["store"] for c in cfgs if not c["ran"]}, {"bare extents"})
        self.assertEqual([c["ran"] for c in cfgs], sorted((c["ran"] for c in cfgs), reverse=True))

    def test_l1_runs_longer_than_the_medium_holds_on_a_log_that_wraps(self):
        # 10 minutes of the default streams are 8.7 MB; a 4 MiB NOR holds
        # them through sensorlog, whose oldest records make room (L1's
        # space check refused it before: "L1 needs 75.1 MiB")
        target = "sim:nor-spi,capacity=4M+sensorlog,files=4,buffer=4K"
        r = run("run", "-q", "-t", target, "--tests", "L1", "-d", "10m", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.load()["tests"][0]
        self.assertEqual(t["status"], "ok")
        direct = next(p for p in t["points"] if p["params"]["mode"] == "direct")
        self.assertGreater(direct["metrics"]["payload_bytes"], 2 * 4 << 20)
        self.assertGreater(direct["device"]["blocks_erased"], 1024)  # the log went round
        # bare extents cannot wrap: refused before anything runs, as before
        r = run("run", "-q", "-t", "sim:nor-spi,capacity=4M", "--tests", "L1", "-d", "10m")
        self.assertEqual(r.returncode, 2)
        self.assertIn("L1 needs", r.stderr)

    def test_the_projected_lifetime_is_where_an_accelerated_run_wears_out(self):
        # issue 47: the years to the first worn block, from the run's wear,
        # checked against a run to the end of life: a 4 MiB NOR whose blocks
        # take 10 erases, written at 64 KB/s, wears out in minutes. The
        # first writer (direct) runs on the fresh medium, so it is the one
        # to check (the others find it as direct left it).
        medium = "sim:nor-spi,capacity=4M,endurance=10"
        r = self.plan("--streams", "a:1000Hz:64B", "--medium", medium, "--ram", "64K", "-d", "2m",
                      "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load_plan(self.out)
        self.assertEqual((doc["spec"]["medium_endurance"], doc["spec"]["medium_erase_bytes"]),
                         (10, 4096))
        c = next(x for x in doc["configurations"] if x["fits"] and x["writer"] == "direct")
        args = shlex.split(c["command"])[1:-1]
        l1 = os.path.join(self.dir, "again.json")
        p = run(*args, l1)
        self.assertEqual(p.returncode, 0, p.stderr)
        dev = self.load(l1)["tests"][0]["points"][0]["device"]
        # the wear, from the run's own counters: erases, or bytes programmed
        # over the 4 KiB block where more; 1,024 blocks; 120 s
        erases = max(dev["blocks_erased"], dev["bytes_written"] / 4096)
        self.assertAlmostEqual(c["erases_per_block_per_day"], erases / 1024 / (120 / 86400),
                               delta=1e-6 * erases)
        end = c["lifetime_years"] * 365 * 86400  # s
        self.assertLess(end, 3600)
        for share in (0.9, 1.1):
            d = "%ds" % int(end * share)
            i = args.index("-d")
            p = run(*(args[:i + 1] + [d] + args[i + 2:]), l1)
            t = self.load(l1)["tests"][0]
            direct = [x for x in t["points"] if x["params"]["mode"] == "direct"]
            if share < 1:  # not worn yet: every block under its 10 erases, nothing lost
                self.assertEqual(len(direct), 1, p.stderr)
                self.assertLess(direct[0]["device"]["erase_count_max"], 10)
                self.assertEqual(direct[0]["metrics"]["records_lost"], 0)
            else:  # worn: the direct writer's run met a block that failed its erase
                self.assertEqual(p.returncode, 1)
                self.assertTrue(not direct or direct[0]["device"]["erase_count_max"] >= 10, t)
                self.assertIn("I/O error", t["error"])
        # asked to last a day, nothing does, and the plan says why
        r = self.plan("--streams", "a:1000Hz:64B", "--medium", medium, "--ram", "64K", "-d", "2m",
                      "--lifetime", "1d", "-q", "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no configuration lasts 1.0 d on this medium; the longest-lasting lossless "
                      "one within 64 KiB wears a block out in", r.stderr)
        self.assertIsNone(self.load_plan(self.out)["recommended"])

    def test_how_many_run_at_once_does_not_change_the_plan(self):
        docs = []
        for j in ("1", "2"):
            out = os.path.join(self.dir, "j%s.json" % j)
            r = self.plan("--streams", self.STREAMS, "--ram", "2K", "-d", "3s", "-j", j, "-q",
                          "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "")
            docs.append(self.load_plan(out)["configurations"])
        self.assertEqual(docs[0], docs[1])

    def test_report_of_a_plan_shows_its_front(self):
        # issue 47: "a section in `report -o` HTML with the front plotted"
        out = os.path.join(self.dir, "p.json")
        r = self.plan("--streams", self.STREAMS, "--ram", "2K", "-d", "3s", "-q", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.load_plan(out)
        cs = doc["configurations"]
        rec = next(c for c in cs if c["rank"] == doc["recommended"])
        html = os.path.join(self.dir, "p.html")
        rep = run("report", out, "-o", html)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        front = [c for c in cs if c["front"] and c["fits"]]
        self.assertIn("%d configurations judged, %d ran, %d fit, %d on the Pareto front" % (
            len(cs), sum(c["ran"] for c in cs), sum(c["fits"] for c in cs),
            sum(c["front"] for c in cs)), rep.stdout)
        line = rep.stdout.split("recommended: ", 1)[1].split("\n")[0]
        self.assertTrue(line.startswith("%s, %s, " % (rec["store"], rec["writer"])), line)
        self.assertIn("worst stall %s" % dur(rec["worst_stall_ns"]), line)
        ranks = re.findall(r"(?m)^ +(\d+)\. ", rep.stdout.split("the front", 1)[1])
        self.assertEqual([int(x) for x in ranks], [c["rank"] for c in front])
        with open(html) as f:
            page = f.read()
        self.assertEqual(page.count("<tr class="), len(cs))  # a row each, ranked
        self.assertEqual(page.count('<tr class="fits front">'), len(front))
        self.assertIn(rec["command"][:40], page)
        if shutil.which("gnuplot"):  # the front plotted
            self.assertEqual(page.count("<svg"), 1)
            self.assertIn("report: %s (1 figure)" % html, rep.stdout)
        else:
            self.assertIn("needs gnuplot", page)
        # a plan that is not one: said, nothing written
        with open(out, "w") as f:
            json.dump({"schema": "storscope-plan/1"}, f)
        os.remove(html)
        rep = run("report", out, "-o", html)
        self.assertEqual(rep.returncode, 2)
        self.assertIn("without its spec or configurations", rep.stderr)
        self.assertFalse(os.path.exists(html))

    def test_nothing_fits_says_what_the_smallest_lossless_one_needs(self):
        r = self.plan("--streams", "imu:1000Hz:255B,ppg:500Hz:200B", "--ram", "1K", "-d", "3s",
                      "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        doc = self.load_plan(self.out)
        self.assertIsNone(doc["recommended"])
        self.assertFalse(any(c["fits"] for c in doc["configurations"]))
        least = min(c["ram_bytes"] for c in doc["configurations"] if c["lossless"])
        units = "%d KiB" % (least // 1024) if least % 1024 == 0 else "%d B" % least
        self.assertIn("no configuration fits 1 KiB; the smallest lossless one needs %s" % units,
                      r.stderr)
        # which streams lost records (issue 47: "records lost per stream"):
        # each stream's count, adding up to the total; and a lossy
        # configuration's command gives the same counts stream by stream
        lossy = [c for c in doc["configurations"] if c["ran"] and c["records_lost"]]
        self.assertTrue(lossy)
        for c in doc["configurations"]:
            if c["ran"]:
                by = c["records_lost_by_stream"]
                self.assertEqual(sorted(by), ["imu", "ppg"])
                self.assertEqual(sum(by.values()), c["records_lost"], c)
        c = lossy[0]
        l1 = os.path.join(self.dir, "lossy.json")
        p = subprocess.run([BIN] + shlex.split(c["command"])[1:-1] + [l1], capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        pt = next(q for q in self.load(l1)["tests"][0]["points"]
                  if q["params"]["mode"] == c["writer"])
        self.assertEqual({s: pt["metrics"]["records_lost_" + s] for s in ("imu", "ppg")},
                         c["records_lost_by_stream"])
        self.assertGreater(max(c["records_lost_by_stream"].values()), 0)
        # nothing lossless: the best one's losses, stream by stream
        r = self.plan("--streams", "imu:100000Hz:255B,env:1Hz:8B", "--ram", "1K", "-d", "2s",
                      "-q", "-o", self.out)
        self.assertEqual(r.returncode, 1, r.stderr)
        best = self.load_plan(self.out)["configurations"][0]
        self.assertFalse(best["lossless"])
        self.assertIn("no configuration is lossless on this medium; the best lost %d records "
                      "(rank 1; imu %d; env %d)" % (
                          best["records_lost"] + best["records_late"],
                          best["records_lost_by_stream"]["imu"],
                          best["records_lost_by_stream"]["env"]), r.stderr)

    def test_ctrl_c_keeps_the_runs_that_finished(self):
        p = subprocess.Popen([BIN, "plan", "--streams", self.STREAMS, "--ram", "4K", "-d", "10m",
                              "-j", "1", "-q", "-o", self.out], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, TMPDIR=self.dir))
        # stopped once a few runs have finished (their results are in its directory)
        deadline = time.time() + 120
        while time.time() < deadline:
            runs = [n for d in os.listdir(self.dir) if d.startswith("storscope-plan.")
                    for n in os.listdir(os.path.join(self.dir, d)) if n.endswith(".json")]
            if len(runs) >= 3:
                break
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("stopped", err)
        doc = self.load_plan(self.out)
        self.assertTrue(doc["interrupted"])
        ran = [c for c in doc["configurations"] if c["ran"]]
        self.assertGreaterEqual(len(ran), 3 * 2, "the runs that finished are kept")
        self.assertLess(len(ran), len(doc["configurations"]))
        self.assertEqual(doc["configurations"][-1]["ran"], False)
        self.no_leftovers()


class PlanShards(Base):
    """storscope plan beyond one machine (issue 48): shards that each run
    a part of the runs into a directory, a collect that ranks them into the
    plan a local run gives, byte for byte, and --slurm's array job, run here
    by a stand-in sbatch that records it and then each task run as Slurm
    would run it."""

    ARGS = ["--streams", "imu:1000Hz:12B,env:1Hz:32B", "--ram", "16K", "-d", "20s",
            "--confirm-for", "2m", "--medium", "sim:emmc-stm32u5,capacity=64M"]

    def plan(self, *args, env=None):
        env = dict(os.environ, TMPDIR=self.dir, XDG_DATA_HOME=os.path.join(self.dir, "data")) \
            if env is None else env
        return run("plan", *self.ARGS, *args, env=env, timeout=600)

    def local(self):
        out = os.path.join(self.dir, "local.json")
        r = self.plan("-q", "-o", out)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        with open(out, "rb") as f:
            return f.read()

    def test_shards_then_collect_give_the_local_plan(self):
        want = self.local()
        shards = os.path.join(self.dir, "shards")
        for k in (1, 2, 3):
            r = self.plan("--shard", f"{k}/3", "--shard-dir", shards, "-j", "1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"shard {k} of 3: 36 runs", r.stdout)
        out = os.path.join(self.dir, "collected.json")
        r = self.plan("--collect", shards, "-q", "-o", out)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), want, "the collected plan is not the local one")
        # a run no shard left is said and listed as not run
        os.remove(os.path.join(shards, "5.json"))
        r = self.plan("--collect", shards, "-q", "-o", out)
        self.assertIn("1 of 108 runs failed", r.stderr)
        self.assertIn("did its shard run?", r.stderr)
        with open(out) as f:
            ran = [c["ran"] for c in json.load(f)["configurations"]]
        self.assertEqual(ran.count(False), 3)
        # the shards of another plan are refused, not mixed in
        r = run("plan", "--streams", "imu:500Hz:12B", "--ram", "16K", "-d", "20s",
                "--collect", shards)
        self.assertEqual(r.returncode, 2)
        self.assertIn("holds the runs of another plan", r.stderr)
        r = self.plan("--shard", "1/3", "--shard-dir", shards, "--repeat", "2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("holds the runs of another plan", r.stderr)

    def test_slurm_submits_one_task_a_run_and_collect_finds_the_job(self):
        want = self.local()
        fake = os.path.join(self.dir, "bin")
        os.mkdir(fake)
        with open(os.path.join(fake, "sbatch"), "w") as f:
            f.write('#!/bin/sh\necho "$@" > "%s/sbatch.args"\necho "4242;cluster"\n' % self.dir)
        os.chmod(os.path.join(fake, "sbatch"), 0o755)
        env = dict(os.environ, TMPDIR=self.dir, XDG_DATA_HOME=os.path.join(self.dir, "data"),
                   PATH=fake + os.pathsep + os.environ["PATH"])
        shards = os.path.join(self.dir, "shards")
        r = self.plan("--slurm", "--shard-dir", shards, "--array-max", "8", "--partition", "fast",
                      env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("submitted Slurm job 4242: 108 runs", r.stdout)
        with open(os.path.join(self.dir, "sbatch.args")) as f:
            self.assertEqual(f.read().split(), ["--parsable", os.path.join(shards, "job.sh")])
        with open(os.path.join(shards, "job.sh")) as f:
            job = f.read()
        self.assertIn("#SBATCH --array=1-108%8\n", job)
        self.assertIn("#SBATCH --partition=fast\n", job)
        # each task as Slurm runs it: the script with its task's number
        for k in range(1, 109):
            t = subprocess.run(["sh", os.path.join(shards, "job.sh")], capture_output=True,
                               text=True, env=dict(env, SLURM_ARRAY_TASK_ID=str(k)), timeout=300)
            self.assertEqual(t.returncode, 0, t.stderr)
        out = os.path.join(self.dir, "slurm.json")
        r = self.plan("--collect", "4242", "-q", "-o", out, env=env)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), want, "the plan through the array job is not the local one")
        # sbatch missing, or refusing
        with open(os.path.join(fake, "sbatch"), "w") as f:
            f.write("#!/bin/sh\necho 'sbatch: error: Batch job submission failed' >&2\nexit 1\n")
        r = self.plan("--slurm", "--shard-dir", shards, env=env)
        self.assertEqual(r.returncode, 2)
        self.assertIn("sbatch did not take the job", r.stderr)

    def test_bad_shard_options_are_refused(self):
        d = os.path.join(self.dir, "s")
        for args, said in ((["--shard", "0/3", "--shard-dir", d], "bad --shard '0/3'"),
                           (["--shard", "4/3", "--shard-dir", d], "bad --shard '4/3'"),
                           (["--shard", "two", "--shard-dir", d], "bad --shard 'two'"),
                           (["--shard", "1/3"], "--shard needs --shard-dir"),
                           (["--slurm"], "--slurm needs --shard-dir"),
                           (["--shard", "1/3", "--shard-dir", d, "-o", "x.json"],
                            "--collect writes the plan"),
                           (["--shard", "1/2", "--collect", d], "give one"),
                           (["--partition", "p"], "go with --slurm"),
                           (["--collect", os.path.join(self.dir, "none")], "no such directory"),
                           (["--collect", "999"], "no job of that number"),
                           (["--collect", self.dir], "holds no plan's runs")):
            r = self.plan(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr, args)
