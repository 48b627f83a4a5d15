"""The results archive (issue 48): storscope db and run --db, checked
against the results documents themselves and against the archive read by
the engine's own client - Python's sqlite3 module, PostgreSQL's psql. One
suite of tests, run once per engine: class Archive on SQLite, class
ArchivePostgres on a PostgreSQL cluster made for the run (pg_cluster.py)."""
import sqlite3

from cli_base import *  # noqa: F401,F403
import pg_cluster


def read_text(path):
    with open(path) as f:
        return f.read()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def has_archive():
    r = run("db", "--help")
    return r.returncode == 0


class Archive(Base):
    """The archive's behaviour on SQLite; ArchivePostgres runs the same
    tests through the hooks below on PostgreSQL."""

    def setUp(self):
        super().setUp()
        if not has_archive():
            self.skipTest("this storscope was built without SQLite (libsqlite3-dev)")
        self.db = os.path.join(self.dir, "a.db")
        self.url = "sqlite:" + self.db

    def sql(self, query, *args):
        """Rows of query, as the engine's own client reads the archive."""
        con = sqlite3.connect(self.db)
        try:
            return con.execute(query, args).fetchall()
        finally:
            con.close()

    def archive_made(self):
        # a file is made before its schema: an import killed in between
        # leaves an empty database, not an archive
        return os.path.exists(self.db) and bool(
            self.sql("SELECT 1 FROM sqlite_master WHERE name = 'runs'"))

    def intact(self):
        self.assertEqual(self.sql("PRAGMA integrity_check")[0][0], "ok")

    def make_run(self, name, target, tests="B0", *extra):
        path = os.path.join(self.dir, name)
        r = run("run", "-q", "-t", target, "--tests", tests, "-o", path, *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        return path

    def runs(self, runs=3):
        """Three results files: B0 on two models, B0 and fsync on a third."""
        return [self.make_run("emmc.json", "sim:emmc-stm32u5,capacity=64M"),
                self.make_run("sd.json", "sim:sd-consumer,capacity=64M", "B0,fsync", "-d", "2s"),
                self.make_run("ram.json", "sim:ram,capacity=16M")][:runs]

    def db_cmd(self, *args, **kw):
        return run("db", args[0], "--db", self.url, *args[1:], **kw)

    def test_import_list_show_and_export_say_what_the_files_hold(self):
        files = self.runs()
        r = self.db_cmd("import", *files)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 runs archived, 0 already there", r.stdout)
        docs = [json.loads(read_text(f)) for f in files]
        # the archive as SQLite itself reads it: each document, byte for byte
        rows = self.sql("SELECT id, target, status, document FROM runs ORDER BY id")
        self.assertEqual([r[1] for r in rows], [d["run"]["target"] for d in docs])
        for (rid, _, status, text), f, d in zip(rows, files, docs):
            self.assertEqual(text, read_text(f))
            self.assertEqual(status, d["status"])
            n = self.sql("SELECT count(*) FROM points WHERE run_id = %d" % int(rid))[0][0]
            self.assertEqual(int(n), sum(len(t["points"]) for t in d["tests"]))
        # list, and its filters
        out = self.db_cmd("list").stdout
        for rid, d in zip((1, 2, 3), docs):
            self.assertRegex(out, r"(?m)^%d\s.*%s$" % (rid, re.escape(d["run"]["target"])))
        only_sd = self.db_cmd("list", "--target", "sd-consumer").stdout
        self.assertIn("sim:sd-consumer", only_sd)
        self.assertNotIn("emmc", only_sd)
        only_fsync = self.db_cmd("list", "--test", "fsync").stdout.splitlines()[1:]
        self.assertEqual([line.split()[0] for line in only_fsync], ["2"])
        none = self.db_cmd("list", "--since", "2999-01-01")
        self.assertEqual(none.returncode, 0)
        self.assertIn("no run", none.stdout)
        # show --json gives the document back, as archived
        shown = self.db_cmd("show", "2", "--json")
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(shown.stdout, read_text(files[1]))
        self.assertIn("sim:sd-consumer", self.db_cmd("show", "2").stdout)
        # export: one row a point, each mean the document's
        csv_out = self.db_cmd("export", "--csv").stdout
        rows = list(csv.DictReader(io.StringIO(csv_out)))
        want = [(str(i + 1), t["id"], p["name"], p["runs"]["mean"])
                for i, d in enumerate(docs) for t in d["tests"] for p in t["points"]
                if "runs" in p]
        got = [(r["run_id"], r["test"], r["name"], float(r["mean"])) for r in rows if r["mean"]]
        self.assertEqual(got, want)
        self.assertEqual(json.loads(rows[0]["params"]), docs[0]["tests"][0]["points"][0]["params"])

    def test_a_file_archived_twice_is_one_run(self):
        f = self.runs(1)[0]
        self.assertEqual(self.db_cmd("import", f).returncode, 0)
        again = self.db_cmd("import", f, f)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("0 runs archived, 2 already there", again.stdout)
        self.assertEqual(int(self.sql("SELECT count(*) FROM runs")[0][0]), 1)

    def test_foreign_or_damaged_input_is_refused_and_nothing_written(self):
        good = self.runs(1)[0]
        plan = os.path.join(self.dir, "plan.json")
        with open(plan, "w") as f:
            json.dump({"schema": "storscope-plan/1", "configurations": []}, f)
        cut = os.path.join(self.dir, "cut.json")
        with open(cut, "w") as f:
            f.write(read_text(good)[:500])
        for bad in (plan, cut):
            r = self.db_cmd("import", good, bad)
            self.assertEqual(r.returncode, 2, r.stdout)
            self.assertIn(os.path.basename(bad), r.stderr)
            self.assertIn("nothing imported", r.stderr)
            self.assertFalse(os.path.exists(self.db), "an archive was made from a refused import")
        # an archive that is not one: a text file, another program's SQLite
        # database, one made by a newer storscope - each named, none changed
        notes = os.path.join(self.dir, "notes.db")
        with open(notes, "w") as f:
            f.write("these are notes, not a database\n" * 200)
        other = os.path.join(self.dir, "other.db")
        con = sqlite3.connect(other)
        con.execute("CREATE TABLE readings(t, v)")
        con.commit()
        con.close()
        self.assertEqual(self.db_cmd("import", good).returncode, 0)
        con = sqlite3.connect(self.db)
        con.execute("UPDATE storscope_meta SET value = '99' WHERE key = 'schema_version'")
        con.commit()
        con.close()
        for path, why in ((notes, "not an SQLite database"), (other, "not a storscope archive"),
                          (self.db, "newer storscope")):
            before = read_bytes(path)
            r = run("db", "import", "--db", path, good)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(why, r.stderr)
            self.assertEqual(read_bytes(path), before, f"{path} was changed")
        r = run("db", "list", "--db", os.path.join(self.dir, "none.db"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("there is no archive", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "none.db")))
        r = run("db", "list", "--db", "mysql://db.example/results")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not an archive storscope knows", r.stderr)

    def test_bad_usage_is_named(self):
        for args, said in ((["db"], "needs what to do"), (["db", "frob"], "unknown action 'frob'"),
                           (["db", "show", "--db", self.db, "abc"], "'abc' is not a run's id"),
                           (["db", "list", "--db", self.db, "extra"], "takes no operands"),
                           (["db", "import", "--db", self.db], "needs results files"),
                           (["db", "compare", "--db", self.db, "1"], "2 to 16 runs")):
            r = run(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr, args)
        # a password in a server's URL never shows in what storscope says
        r = run("db", "list", "--db", "postgresql://ann:s%40cret@127.0.0.1:1/x")
        self.assertEqual(r.returncode, 2)
        self.assertNotIn("cret", r.stderr)
        if "built without" not in r.stderr:
            self.assertIn("postgresql://ann@127.0.0.1:1/x", r.stderr)
        self.assertEqual(self.db_cmd("import", self.runs(1)[0]).returncode, 0)
        r = self.db_cmd("show", "7")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no run 7", r.stderr)

    def test_compare_over_the_archive_is_compares_table(self):
        files = self.runs(2)
        self.assertEqual(self.db_cmd("import", *files).returncode, 0)
        by_db = self.db_cmd("compare", "1", "2", "--format", "md")
        by_files = run("compare", "--format", "md", *files)
        self.assertEqual(by_db.returncode, 0, by_db.stderr)
        rows_db = by_db.stdout.splitlines()
        rows_files = by_files.stdout.splitlines()
        self.assertIn("run 1", rows_db[0])
        self.assertGreater(len(rows_db), 4)
        self.assertEqual(rows_db[1:], rows_files[1:])

    def test_run_archives_as_it_ends_and_leaves_no_scratch_file(self):
        tmp = os.path.join(self.dir, "tmp")
        os.mkdir(tmp)
        env = dict(os.environ, TMPDIR=tmp)
        r = run("run", "-q", "-t", "sim:ram,capacity=16M", "--tests", "B0",
                "--db=" + self.url, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(tmp), [], "run --db left its scratch results behind")
        out = os.path.join(self.dir, "r.json")
        r = run("run", "-q", "-t", "sim:ram,capacity=16M", "--tests", "B0", "--seed", "2",
                "-o", out, "--db=" + self.url, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.sql("SELECT seed, document FROM runs ORDER BY id")
        self.assertEqual([int(s) for s, _ in rows], [1, 2])
        self.assertEqual(rows[1][1], read_text(out))
        self.load(out)
        # an archive that cannot be had is found before anything runs
        bad = self.unreachable()
        out2 = os.path.join(self.dir, "r2.json")
        r = run("run", "-q", "-t", self.target, "--tests", "B0", "-o", out2, "--db=" + bad)
        self.assertEqual(r.returncode, 2)
        self.assertIn(bad.split(":", 1)[1], r.stderr)
        self.assertFalse(os.path.exists(out2))
        self.assertTrue(self.target_is_empty())

    def unreachable(self):
        """An archive that cannot be opened or made."""
        return "sqlite:" + os.path.join(self.dir, "no", "such", "dir", "x.db")

    def test_the_default_archive_follows_xdg_data_home(self):
        f = self.runs(1)[0]
        xdg = os.path.join(self.dir, "xdg")
        env = dict(os.environ, XDG_DATA_HOME=xdg)
        r = run("db", "import", f, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(xdg, "storscope", "results.db")))
        home = os.path.join(self.dir, "home")
        os.mkdir(home)
        env = {k: v for k, v in os.environ.items() if k != "XDG_DATA_HOME"}
        env["HOME"] = home
        r = run("db", "import", f, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(home, ".local/share/storscope/results.db")))

    def distinct_copies(self, f, n):
        """n files holding f's run, each a different document (a space
        more at the end: another digest, the same points)."""
        text = read_text(f)
        out = []
        for i in range(n):
            p = os.path.join(self.dir, f"copy{i}.json")
            with open(p, "w") as g:
                g.write(text + " " * (i + 1))
            out.append(p)
        return out

    def test_writers_and_a_reader_at_once(self):
        copies = self.distinct_copies(self.runs(1)[0], 24)
        self.assertEqual(self.db_cmd("import", copies[0]).returncode, 0)
        writers = [subprocess.Popen([BIN, "db", "import", "-q", "--db", self.url, *copies[k::4]],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                   for k in range(4)]
        reads = 0
        while any(w.poll() is None for w in writers):
            r = self.db_cmd("list")
            self.assertEqual(r.returncode, 0, r.stderr)
            reads += 1
        for w in writers:
            _, err = w.communicate()
            self.assertEqual(w.returncode, 0, err)
        self.assertGreater(reads, 0)
        self.intact()
        self.assertEqual(int(self.sql("SELECT count(*) FROM runs")[0][0]), 24)

    def test_a_killed_import_leaves_each_run_whole_or_absent(self):
        # runs of thousands of points each: storing one takes long enough
        # that a kill lands inside one (a run's points are its test's,
        # repeated: a document like any other)
        doc = json.loads(read_text(self.runs(1)[0]))
        doc["tests"][0]["points"] *= 100
        f = os.path.join(self.dir, "big.json")
        with open(f, "w") as g:
            json.dump(doc, g)
        points = sum(len(t["points"]) for t in doc["tests"])
        copies = self.distinct_copies(f, 30)
        for delay in (0.05, 0.2, 0.4, 0.8):
            p = subprocess.Popen([BIN, "db", "import", "-q", "--db", self.url, *copies],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
            if self.archive_made():
                self.intact()
                for rid, n in self.sql("SELECT r.id, (SELECT count(*) FROM points p WHERE "
                                       "p.run_id = r.id) FROM runs r"):
                    self.assertEqual(int(n), points,
                                     f"run {rid} was left with {n} of {points} points")
        r = self.db_cmd("import", "-q", *copies)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(int(self.sql("SELECT count(*) FROM runs")[0][0]), 30)

    def test_trend_follows_one_figure_run_by_run(self):
        files = self.runs()
        self.assertEqual(self.db_cmd("import", *files).returncode, 0)
        r = self.db_cmd("trend", "B0 write, 1 KiB")
        self.assertEqual(r.returncode, 0, r.stderr)
        want = []
        for f in files:
            d = json.loads(read_text(f))
            b0 = next(t for t in d["tests"] if t["id"] == "B0")
            want.append(next(p["runs"]["mean"] for p in b0["points"]
                             if p["params"]["op"] == "write" and p["params"]["chunk_bytes"] == 1024))
        lines = [line for line in r.stdout.splitlines() if re.match(r"^\d+\s+\d{4}-", line)]
        self.assertEqual([line.split()[0] for line in lines], ["1", "2", "3"])
        for line, v in zip(lines, want):
            self.assertIn(rate(v), line)
        self.assertIn("the last is %.2fx the first" % (want[2] / want[0]), r.stdout)
        # -o: the same rows in an HTML page, and the figure drawn where gnuplot is
        page = os.path.join(self.dir, "trend.html")
        r = self.db_cmd("trend", "B0 write, 1 KiB", "-o", page)
        self.assertEqual(r.returncode, 0, r.stderr)
        html = read_text(page)
        self.assertEqual(re.findall(r"<tr><td>(\d+)</td>", html), ["1", "2", "3"])
        for v in want:
            self.assertIn("<td>%s</td>" % rate(v), html)
        if shutil.which("gnuplot"):
            self.assertEqual(html.count("<svg"), 1)
        else:
            self.assertIn("no figure: gnuplot is not installed", html)
        # a filter keeps one card's runs; a figure only one run has is that run's
        one = self.db_cmd("trend", "fsync p50", "--target", "sd-consumer")
        self.assertEqual([line.split()[0] for line in one.stdout.splitlines()
                          if re.match(r"^\d+\s+\d{4}-", line)], ["2"])
        for name, said in (("B0", "names more than one figure"), ("latency", "names no figure")):
            bad = self.db_cmd("trend", name)
            self.assertEqual(bad.returncode, 2)
            self.assertIn(said, bad.stderr)
            self.assertIn("fsync p99.99", bad.stderr)


    def test_openmetrics_of_a_run_and_of_each_cards_latest(self):
        try:
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
        except ImportError:
            self.skipTest("needs Debian's python3-prometheus-client to read OpenMetrics")

        def families(text):
            out = {}
            for fam in text_string_to_metric_families(text):
                for s in fam.samples:
                    out.setdefault(s.name, []).append((s.labels, s.value))
            return out

        p = os.path.join(self.dir, "t")
        old = self.make_run("old.json", "posix:" + p, "fsync", "-d", "1s")
        new = self.make_run("new.json", "posix:" + p, "fsync", "-d", "1s", "--seed", "2")
        other = self.make_run("sd.json", "sim:sd-consumer,capacity=64M", "B0,fsync", "-d", "2s")
        docs = {f: json.loads(read_text(f)) for f in (old, new, other)}

        def p50(doc):
            t = next(t for t in doc["tests"] if t["id"] == "fsync")
            return t["points"][0]["latency"]["write+flush"]["percentiles_ns"]["50"] / 1e9

        r = run("report", "--format", "openmetrics", new)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.endswith("# EOF\n"))
        got = families(r.stdout)
        self.assertEqual(got["storscope_run_info"][0][0]["run"], "new.json")
        lat = {s[0]["figure"]: s[1] for s in got["storscope_latency_seconds"]}
        self.assertAlmostEqual(lat["fsync p50"], p50(docs[new]), delta=1e-12)
        env = docs[new]["environment"]
        self.assertEqual(got["storscope_filesystem_free_bytes"][0][1], env["fs_free_bytes"])
        self.assertEqual(got["storscope_filesystem_size_bytes"][0][1], env["fs_total_bytes"])
        self.assertGreater(env["fs_total_bytes"], env["fs_free_bytes"])
        # the archive: the latest run of each target (no probe named a card)
        self.assertEqual(self.db_cmd("import", old, other, new).returncode, 0)
        r = run("report", "--format", "openmetrics", "--db=" + self.url)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = families(r.stdout)
        info = sorted((s[0]["run"], s[0]["target"]) for s in got["storscope_run_info"])
        self.assertEqual(info, [("2", docs[other]["run"]["target"]),
                                ("3", docs[new]["run"]["target"])])
        lat = {(s[0]["run"], s[0]["figure"]): s[1] for s in got["storscope_latency_seconds"]}
        self.assertAlmostEqual(lat[("3", "fsync p50")], p50(docs[new]), delta=1e-12)
        self.assertAlmostEqual(lat[("2", "fsync p50")], p50(docs[other]), delta=1e-12)
        rates = {(s[0]["run"], s[0]["figure"]): s[1]
                 for s in got["storscope_throughput_bytes_per_second"]}
        b0 = next(t for t in docs[other]["tests"] if t["id"] == "B0")
        want = next(x["runs"]["mean"] for x in b0["points"]
                    if x["params"]["op"] == "write" and x["params"]["chunk_bytes"] == 1024)
        self.assertAlmostEqual(rates[("2", "B0 write, 1 KiB chunks")], want, delta=want * 1e-12)
        for args, said in ((["--format", "openmetrics"], "one results file, or --db"),
                           (["--format", "openmetrics", new, "--db=" + self.url],
                            "one results file, or --db"),
                           (["--db=" + self.url, new], "--db goes with --format openmetrics")):
            r = run("report", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr, args)


    def test_runs_group_by_the_card_a_probe_named(self):
        img = os.path.join(self.dir, "card.img")
        with open(img, "wb") as f:
            f.truncate(8 << 20)
        sd = os.path.join(FIXTURES, "sysfs", "sd-sl16g")
        probe = os.path.join(self.dir, "probe.json")
        r = run("probe", "raw:" + img, "-o", probe, env=dict(os.environ, STORSCOPE_SYSFS_DEVICE=sd))
        self.assertEqual(r.returncode, 0, r.stderr)
        ident = json.loads(read_text(probe))["probe"]["identity"]
        runs = self.runs(2)
        r = self.db_cmd("import", "--probe", probe, runs[0])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("run", "-q", "-t", "raw:" + img, "--tests", "M1", "--probe", probe,
                "--db=" + self.url)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.db_cmd("import", runs[1]).returncode, 0)
        rows = self.sql("SELECT id, card_manufacturer, card_oem, card_name, card_serial FROM runs "
                        "ORDER BY id")
        card = ("0x%02x" % ident["manfid"], ident["oemid"], ident["name"],
                "0x%08x" % ident["serial"])
        self.assertEqual([tuple(r[1:]) for r in rows[:2]], [card, card])
        self.assertEqual(tuple(x or "" for x in rows[2][1:]), ("", "", "", ""))
        by_card = self.db_cmd("list", "--card", ident["name"]).stdout.splitlines()[1:]
        self.assertEqual([line.split()[0] for line in by_card], ["1", "2"])
        # a probe that names no card (an image) is refused: nothing imported
        bare = os.path.join(self.dir, "bare.json")
        self.assertEqual(run("probe", "raw:" + img, "-o", bare).returncode, 0)
        r = self.db_cmd("import", "--probe", bare, runs[1])
        self.assertEqual(r.returncode, 2)
        self.assertIn("names no card", r.stderr)

class ArchivePostgres(Archive):
    """The same tests on PostgreSQL: a cluster of its own in a temporary
    directory (initdb, a Unix socket there and no TCP), a new database for
    each test, read back by psql."""

    @classmethod
    def setUpClass(cls):
        cls.cluster = pg_cluster.start()

    @classmethod
    def tearDownClass(cls):
        if cls.cluster:
            cls.cluster.stop()

    def setUp(self):
        if not self.cluster:
            self.skipTest(pg_cluster.why_not())
        super().setUp()
        probe = run("db", "list", "--db", "postgresql:///none?host=/nonexistent")
        if "built without" in probe.stderr:
            self.skipTest("this storscope was built without libpq (libpq-dev)")
        self.url = self.cluster.new_database()

    def sql(self, query, *args):
        assert not args
        return self.cluster.query(self.url, query)

    def archive_made(self):
        return bool(self.sql("SELECT 1 FROM information_schema.tables WHERE table_name = "
                             "'storscope_meta'"))

    def intact(self):
        # the server keeps its own pages whole; what is ours to check is
        # that no point is left without its run
        self.assertEqual(self.sql("SELECT count(*) FROM points p WHERE NOT EXISTS "
                                  "(SELECT 1 FROM runs r WHERE r.id = p.run_id)")[0][0], "0")

    def unreachable(self):
        return self.cluster.url_of("no_such_database")

    def test_foreign_or_damaged_input_is_refused_and_nothing_written(self):
        good = self.runs(1)[0]
        cut = os.path.join(self.dir, "cut.json")
        with open(cut, "w") as f:
            f.write(read_text(good)[:500])
        r = self.db_cmd("import", good, cut)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("nothing imported", r.stderr)
        self.assertFalse(self.archive_made(), "tables were made by a refused import")
        # a database with a `runs` table of another program's, and an
        # archive of a newer version: refused, left as they were
        self.cluster.query(self.url, "CREATE TABLE runs(x int); INSERT INTO runs VALUES (7)")
        r = self.db_cmd("import", good)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a storscope archive", r.stderr)
        self.assertEqual(self.sql("SELECT x FROM runs"), [("7",)])
        self.assertFalse(self.archive_made())
        newer = self.cluster.new_database()
        self.assertEqual(run("db", "import", "--db", newer, good).returncode, 0)
        self.cluster.query(newer, "UPDATE storscope_meta SET value = '99'")
        r = run("db", "import", "--db", newer, good)
        self.assertEqual(r.returncode, 2)
        self.assertIn("newer storscope", r.stderr)
        self.assertEqual(self.cluster.query(newer, "SELECT count(*) FROM runs"), [("1",)])
        r = run("db", "list", "--db", self.cluster.new_database())
        self.assertEqual(r.returncode, 2)
        self.assertIn("no archive in this database", r.stderr)

    def test_the_default_archive_follows_xdg_data_home(self):
        self.skipTest("SQLite's: the default archive is a file, never a server")

    def test_bad_usage_is_named(self):
        self.skipTest("the engine does not enter it: Archive runs it")
