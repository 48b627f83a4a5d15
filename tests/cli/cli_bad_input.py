"""CLI tests: Bad input refused with a reason and no damage; help and completion (run through test_cli.py)."""
from cli_base import *  # noqa: F401,F403 (the binary, run(), Base and the modules)


class BadInput(Base):
    def expect_usage_error(self, args, message):
        r = run(*args)
        self.assertEqual(r.returncode, 2, (args, r.stderr))
        self.assertIn(message, r.stderr, args)
        self.assertTrue(r.stderr.startswith("storscope: "), r.stderr)
        self.assertFalse(os.path.exists(self.out), args)
        self.assertTrue(self.target_is_empty(), args)

    def test_a_model_too_large_for_the_address_space_is_told_a_size_that_fits(self):
        # issue 43: a 4 GiB model that could not be mapped was told "give it
        # a smaller capacity= (e.g. capacity=4G)": the size that just failed.
        # 3 GB of address space (ulimit -v) holds neither 4 GiB nor its data.
        import resource
        with open(BIN, "rb") as f:
            if b"__asan_init" in f.read():
                self.skipTest("built with AddressSanitizer, whose shadow memory needs far more "
                              "address space than the 3 GB this test allows")

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        r = run("run", "-q", "-t", "sim:emmc-stm32u5", "--tests", "B0", "-o", self.out,
                preexec_fn=limit)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot reserve", r.stderr)
        m = re.search(r"capacity=(\d+)([MG])", r.stderr)
        self.assertTrue(m, r.stderr)
        hint = int(m.group(1)) << (30 if m.group(2) == "G" else 20)
        self.assertLess(hint, 4 << 30, r.stderr)  # smaller than what failed
        self.assertFalse(os.path.exists(self.out))
        # and the size it names runs within the same limit
        r = run("run", "-q", "-t", "sim:emmc-stm32u5,capacity=%s%s" % m.groups(), "--tests", "B0",
                "-o", self.out, preexec_fn=limit)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_each_bad_input_is_named(self):
        afile = os.path.join(self.dir, "afile")
        open(afile, "w").close()
        cases = [
            (["--tests", "B9"], "unknown test 'B9'"),
            (["--suite", "nope"], "unknown suite 'nope'"),
            (["-t", "posix:" + os.path.join(self.dir, "missing")], "does not exist"),
            (["-t", "posix:" + afile], "is not a directory"),
            (["-t", "foo:/tmp"], "unknown target kind 'foo'"),
            (["-t", "/tmp"], "KIND:ARG"),
            (["-t", self.target + ",turbo=1"], "unknown option 'turbo'"),
            (["--size", "12Q"], "bad --size '12Q'"),
            (["--size", "1.5"], "bad --size"),
            (["--duration", "3x"], "bad --duration '3x'"),
            (["--runs", "0"], "bad --runs"),
            (["--scale", "huge"], "bad --scale"),
            (["--m1-offsets", "sector"], "bad --m1-offsets 'sector' (choose byte or chunk)"),
            (["--frobnicate"], "unknown option '--frobnicate'"),
            (["--tests"], "needs a value"),
            (["--suite", "paper", "--tests", "B0"], "not both"),
            (["-t", "null:", "--verify"], "keeps none"),
            (["-t", "sim:floppy"], "unknown device profile 'floppy'"),
            (["-t", "sim:sd-consumer,warp=9"], "unknown option 'warp'"),
            (["-t", "sim:sd-consumer,capacity=lots"], "bad value 'lots' for 'capacity'"),
            (["-t", "sim:sd-consumer,erase_bytes=3000"], "multiple of page_bytes"),
            # the message names the option the user typed, not the field
            (["-t", "sim:nor-spi,erase_large=96K"], "erase_large must be a multiple of erase_bytes"),
            # an AU limit the model would ignore: raw flash has no AUs, and
            # a count needs the unit it counts
            (["-t", "sim:nor-spi,open_aus=3"], "open_aus needs au"),
            (["-t", "sim:emmc-stm32u5,open_aus=3"], "open_aus needs au"),
            (["-t", "sim:sd-consumer,fake_cache=1M"], "fake_cache= is a counterfeit's cache: it needs fake="),
            (["-t", "sim:sd-consumer,fake=64M,fake_cache=1000"], "bad value '1000' for 'fake_cache': a size in steps of 512 B"),
            (["-t", "sim:sd-consumer,open_aus=17"], "open_aus at most 16"),
            # issue 44: a flag took any byte (no_ecc=2 ran as no_ecc=1), and
            # a time past 32 bits is refused, not cut
            (["-t", "sim:nor-spi,no_ecc=2"], "value '2' for 'no_ecc' is out of range (flags take 0 or 1"),
            (["-t", "sim:sd-consumer,plp=7"], "value '7' for 'plp' is out of range"),
            # the model's own flags (pack, data, the fault flags) said only
            # "bad value": they say what they take
            (["-t", "sim:emmc-stm32u5,pack=2+sensorlog"], "bad value '2' for 'pack': it takes 0 or 1"),
            (["-t", "sim:nor-spi,errors_silent=x"], "bad value 'x' for 'errors_silent': it takes 0 or 1"),
            (["-t", "sim:nor-spi,erase_time=5s"], "value '5s' for 'erase_time' is out of range"),
            (["-t", "sim:sd-consumer,data=0", "--verify"], "keeps none"),
            # issue 43: a store that reads back its own layout ran on a model
            # that keeps no data and failed midway ("run failed: out of range")
            (["-t", "sim:emmc-stm32u5,data=0+sensorlog", "--tests", "B0"],
             "sensorlog reads back the layout it writes, and data=0 keeps no data"),
            (["--tests", "fsync", "--size", "64T"], "not enough free space"),
            (["-t", "sim:nand-slc", "--tests", "B0"], "sim:nand-slc+sensorlog"),
            # issue 42: naming bare extents got round that refusal (the
            # seam now decides it from the device, whatever the kind)
            (["-t", "sim:nand-slc+extentfs", "--tests", "B0"], "raw NAND needs a store"),
            (["-t", "sim:emmc-stm32u5+extentfs,turbo=1", "--tests", "B0"],
             "+extentfs: unknown option 'turbo'"),
            # issue 45: mtd: takes MTD character devices only (a real kernel's
            # MTD is tests/vm/kernel_vm.py's: this host has none)
            (["-t", "mtd:/dev/null", "--tests", "M1"], "/dev/null is not an MTD character device"),
            (["-t", "mtd:/dev/mtd97", "--tests", "M1"], "mtd: /dev/mtd97: No such file"),
            (["-t", "mtd:/dev/null,offset=1M", "--tests", "M1"], "mtd: unknown option 'offset'"),
            (["-t", "mtd:", "--tests", "M1"], "give an MTD character device"),
            (["--tests", "L1", "--streams", "imu:1000x12,bad"], "--streams 'imu:1000x12,bad'"),
            (["--tests", "L1", "--streams", "imu:0x12"], "1 .. 1000000 Hz"),
            (["--tests", "L1", "--streams", "imu:10x300"], "1 .. 255 bytes"),
            (["--tests", "L1", "--streams", ""], "names no stream"),
            (["--tests", "B0", "--streams", "imu:10x12"], "L1 is not among the tests"),
            (["--tests", "B0", "--fio-json", "f.json"], "fsync is not among the tests"),
            # issue 44: L1's options without L1 were taken and ignored
            # (--streams alone was refused)
            (["--tests", "B0", "--deadline", "2s"], "--deadline is an L1 option"),
            (["--tests", "B0", "--buffer", "64K"], "--buffer is an L1 option"),
            (["--tests", "B0", "--sync-every", "1s"], "--sync-every is an L1 option"),
            (["--tests", "B0", "--bisect"], "--bisect is an L1 option"),
            # issue 44: one file for both outputs ran everything, then lost
            # the results ("cannot rename ...partial")
            (["--tests", "fsync", "-d", "100ms", "--fio-json", self.out],
             "-o and --fio-json name the same file"),
            # issue 44: a second layer was taken for part of the profile's name
            (["-t", "sim:emmc-stm32u5+sensorlog+sensorlog"],
             "one filesystem layer at most: a second +FS follows the first"),
            (["-t", "sim:sd-consumer,fail_at=x"], "fail_at= needs an operation number"),
            (["-t", "sim:sd-consumer,fail_at=3,fail_op=frob"], "fail_op= takes"),
            (["-t", "sim:sd-consumer,fail_op=write"], "need fail_at=K"),
            (["-t", "sim:sd-consumer,fail_at=3,fail_err=ebadf"], "fail_err= takes"),
            (["stray"], "unexpected argument 'stray'"),
        ]
        for extra, message in cases:
            args = ["run", "-t", self.target, "-o", self.out, *extra]
            if "-t" in extra:
                args = ["run", "-o", self.out, *extra]
            with self.subTest(args=extra):
                self.expect_usage_error(args, message)

    def test_the_bad_input_table(self):
        # issue 13: every malformed invocation tried, beyond run's options
        # above (34): each exits 2 with a message naming the problem and the
        # argument, writes no results and leaves nothing in the test's
        # directory but what the case itself put there
        d = self.dir
        files = {
            "empty": b"",
            "random.bin": bytes((i * 151 + 7) % 256 for i in range(5000)),
            "truncated.json": b'{"schema": "storscope-result/1", "tests": [',
            "deep.json": b"[" * 100000 + b"]" * 100000,
            "wrong.json": b'{"schema": "nope"}',
            "nul.json": b'{"schema": "storscope-result/1"\x00, "tests": []}',
            # issue 44: valid JSON of the wrong shape - a crash (SIGSEGV), an
            # infinity, and exit 0 with "write in chunks of at least 0 B"
            "metrics-array.json": b'{"schema": "storscope-result/1", "tests": [{"id": "B0", '
                                  b'"points": [{"name": "write", "params": {"chunk_bytes": 1}, '
                                  b'"metrics": [1, 2, 3]}]}]}',
            "tests-5.json": b'{"schema": "storscope-result/1", "tests": 5}',
            "infinite.json": b'{"schema": "storscope-result/1", "tests": [{"id": "B0", '
                             b'"points": [{"name": "write", "params": {"chunk_bytes": 1}, '
                             b'"runs": {"n": 1, "mean": 1e400}}]}]}',
            "chunk-0.json": b'{"schema": "storscope-result/1", "tests": [{"id": "B0", '
                            b'"points": [{"name": "write", "params": {"chunk_bytes": 0}}]}]}',
            "runs-string.json": b'{"schema": "storscope-result/1", "tests": [{"id": "B0", '
                                b'"points": [{"name": "write", "runs": "many"}]}]}',
        }
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        f = lambda name: os.path.join(d, name)
        t = self.target
        demo_dir = tempfile.mkdtemp(prefix="storscope-demo-")  # a log, then its first 4 KiB
        demo = os.path.join(demo_dir, "demo.img")
        r = run("log", "demo", demo)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(demo, "rb") as src, open(f("cut.img"), "wb") as dst:
            dst.write(src.read(4096))
        shutil.rmtree(demo_dir)
        table = [
            # run: sizes, durations, counts (zero, negative, overflowing, empty)
            (["run", "-t", t, "--size", "0"], "bad --size '0'"),
            (["run", "-t", t, "--size", "-1"], "bad --size '-1'"),
            (["run", "-t", t, "--size", "99999999999999999999999"], "bad --size"),
            (["run", "-t", t, "--size", ""], "bad --size ''"),
            (["run", "-t", t, "--duration", "0"], "bad --duration '0'"),
            (["run", "-t", t, "--duration", "-5s"], "bad --duration '-5s'"),
            (["run", "-t", t, "--duration", "99999999999999h"], "bad --duration"),
            (["run", "-t", t, "--runs", "-1"], "bad --runs '-1'"),
            (["run", "-t", t, "--runs", "99999999999999999999"], "bad --runs"),
            (["run", "-t", t, "--runs", "65"], "bad --runs '65'"),
            (["run", "-t", t, "--seed", "abc"], "bad --seed 'abc'"),
            (["run", "-t", t, "--scale", ""], "bad --scale ''"),
            # run: lists and names
            (["run", "-t", t, "--tests", ""], "--tests needs at least one test"),
            (["run", "-t", t, "--tests", "B0,,B2"], "--tests 'B0,,B2': an empty test name"),
            (["run", "-t", t, "--tests", "B0,B0"], "B0 is given twice"),
            (["run", "-t", t, "--tests", "B0" + "x" * 600], "unknown test 'B0xxx"),
            # run: targets (grammar, unknown keys, empty strings, non-UTF-8 bytes)
            (["run", "-t", ""], "bad target '': the target is empty"),
            (["run", "-t", "posix:"], "posix: needs a directory"),
            (["run", "-t", ":x"], "KIND:ARG"),
            (["run", "-t", "posix:" + f("missing") + "\udcff\udcfe"], "does not exist"),
            (["run", "-t", "sim:sd-consumer,=5"], "option '=5' after sim:sd-consumer is not KEY=VALUE"),
            (["run", "-t", "sim:sd-consumer,capacity"], "option 'capacity' after sim:sd-consumer"),
            (["run", "-t", "sim:sd-consumer,capacity=0"], "must be non-zero"),
            (["run", "-t", "sim:sd-consumer,capacity=-1"], "bad value '-1' for 'capacity'"),
            (["run", "-t", "sim:sd-consumer,fail_at=99999999999999999999999"], "fail_at= needs"),
            (["run", "-t", "null:+nofs"], "drop '+nofs'"),
            (["run", "-t", "sim:sd-consumer,dev_fail_at=1,dev_fail_op=write"], "read, program, erase or flush"),
            (["run", "-t", "sim:sd-consumer,dev_fail_from=1"], "need dev_fail_at=K"),
            (["run", "-t", "sim:sd-consumer,dev_fail_at=x"], "dev_fail_at= needs a device command number"),
            # run: where results go
            (["run", "-t", t, "--tests", "B0", "-o", d], "is a directory (give a file name)"),
            (["run", "-t", t, "--tests", "fsync", "-o", self.out, "--fio-json", d],
             "--fio-json " + d + " is a directory"),
            (["run", "-t", t, "--tests", "fsync", "-o", self.out, "--fio-json",
              f("no/such/dir/f.json")], "cannot write --fio-json " + f("no/such/dir/f.json") + ": No such file"),
            (["run", "-t", t, "--tests", "B0", "-o", f("no/such/dir/r.json")], "cannot write -o " + f("no/such/dir/r.json") + ": No such file"),
            (["run", "-t", t, "--tests", "B0", "--csv", f("empty")], "--csv " + f("empty")),
            # log demo in a directory that is not there (it said "it must not
            # exist yet") and over a file that is
            (["log", "demo", f("no/such/dir/x.img")],
             "cannot create " + f("no/such/dir/x.img") + ": No such file or directory"),
            (["log", "demo", f("empty")], "cannot create " + f("empty") + ": it exists"),
            # report: missing, empty, garbage, truncated, deeply nested, wrong schema, a directory
            (["report"], "report needs one results file"),
            (["report", f("missing.json")], "cannot read " + f("missing.json")),
            (["report", f("empty")], "is not valid JSON (truncated at byte 0)"),
            (["report", f("random.bin")], "random.bin is not valid JSON"),
            (["report", f("truncated.json")], "truncated.json is not valid JSON (truncated"),
            # (valid JSON, 100,000 deep: it was called a syntax error)
            (["report", f("deep.json")],
             "deep.json nests arrays or objects deeper than 1000 levels (at byte 1000)"),
            (["report", f("wrong.json")], "is not a storscope-result/1 document"),
            (["report", f("nul.json")], "nul.json is not valid JSON (a NUL byte at byte 31)"),
            (["report", d], "is a directory, not a results file"),
            (["report", f("wrong.json"), "-o"], "option '-o' needs a value"),
            (["report", f("metrics-array.json")],
             "tests[0].points[0].metrics is an array, not an object"),
            (["report", f("tests-5.json")], "tests is a number, not an array"),
            (["report", f("infinite.json")], "tests[0].points[0].runs.mean is not a finite number"),
            (["report", f("chunk-0.json")], "tests[0].points[0].params.chunk_bytes is 0"),
            (["report", f("runs-string.json")], "tests[0].points[0].runs is a string, not an object"),
            (["compare", f("metrics-array.json"), f("chunk-0.json")],
             "metrics-array.json: tests[0].points[0].metrics is an array"),
            # compare
            (["compare", f("random.bin"), f("wrong.json")], "random.bin is not valid JSON"),
            (["compare", "--threshold", "-5", f("a"), f("b")], "bad --threshold '-5'"),
            (["compare", "--threshold", "nan", f("a"), f("b")], "bad --threshold 'nan'"),
            (["compare", "--threshold", "", f("a"), f("b")], "bad --threshold ''"),
            (["compare"] + [f("a")] * 17, "compare needs 2 to 16 results files"),
            (["compare", d, d], "is a directory, not a results file"),
            # log: random bytes, an empty file, a directory, nothing
            (["log"], "log needs a subcommand"),
            (["log", "frob"], "unknown log subcommand 'frob'"),
            (["log", "dump", f("random.bin")], "holds no sensorlog log"),
            # issue 44: an image cut to its first 4 KiB exited 2 without a word
            (["log", "dump", f("cut.img")], "cut.img: no segment holds a whole catalog (the "
                                            "image ends before the log does: cut short?)"),
            (["log", "dump", f("empty")], f("empty")),
            (["log", "dump", d], "is neither a block device nor an image file"),
            (["log", "dump", f("missing.img")], "No such file or directory"),
            (["log", "dump"], "IMAGE"),
            # list and the command itself
            (["list", "frob"], "unknown list 'frob'"),
            (["frobnicate"], "unknown command 'frobnicate'"),
        ]
        before = set(os.listdir(d))
        for args, message in table:
            with self.subTest(args=args[:4]):
                r = subprocess.run([BIN, *args], capture_output=True, timeout=60)
                err = r.stderr.decode("utf-8")  # whatever was typed, the message is text
                self.assertEqual(r.returncode, 2, (args[:4], err))
                self.assertIn(message, err, args[:4])
                self.assertTrue(err.startswith("storscope: "), err)
                self.assertFalse(os.path.exists(self.out), args[:4])
                self.assertTrue(self.target_is_empty(), args[:4])
                self.assertEqual(set(os.listdir(d)), before, args[:4])
        self.assertGreaterEqual(len(table) + 34, 60)

    def test_raw_nor_rewrites_are_not_applicable_and_say_why(self):
        # issue 12.3: fsync rewrites blocks in place; on bare NOR that needs
        # an erase the workload does not model, so it is refused by name
        r = run("run", "-t", "sim:nor-spi,capacity=4M", "--tests", "fsync", "-d", "1s",
                "--size", "64K", "-o", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.out) as f:
            doc = json.load(f)
        test = doc["tests"][0]
        self.assertEqual(test["status"], "not_applicable")
        self.assertIn("+sensorlog", test["error"])

    def test_unknown_command(self):
        r = run("frob")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown command 'frob'", r.stderr)

    def test_unwritable_target(self):
        tdir = os.path.join(self.dir, "t")
        os.chmod(tdir, 0o555)
        os.chmod(self.dir, 0o755)
        cmd = [BIN, "run", "-t", "posix:" + tdir, "--tests", "B0"]
        if os.geteuid() == 0:
            # the build tree may sit where nobody cannot reach it: use a copy
            exe = os.path.join(self.dir, "storscope")
            shutil.copy(BIN, exe)
            os.chmod(exe, 0o755)
            cmd[0] = exe  # root writes anywhere: drop to nobody
            setpriv = shutil.which("setpriv")
            if not setpriv:
                self.skipTest("setpriv not found")
            cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        os.chmod(tdir, 0o755)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("not writable", r.stderr)
        self.assertTrue(self.target_is_empty())


class Completion(unittest.TestCase):
    """bash and zsh completions (issue 44), made at build time from the
    program's own --help texts and lists (cmake/completion.sh): what a
    newcomer's Tab offers at each place."""

    def setUp(self):
        self.bash = os.path.join(os.path.dirname(BIN), "storscope.bash")
        self.zsh = os.path.join(os.path.dirname(BIN), "_storscope")
        if not os.path.exists(self.bash):
            self.skipTest("no completion files beside the binary: a cross build makes none "
                          "(CMakeLists.txt, STORSCOPE_MANPAGE)")

    def complete(self, *words):
        script = (". %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\ncompopt() { :; }\n"
                  "_storscope\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n"
                  % (shlex.quote(self.bash), " ".join(shlex.quote(w) for w in words),
                     len(words) - 1))
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [w for w in r.stdout.split("\n") if w]

    def test_tab_offers_what_the_program_takes(self):
        self.assertEqual(self.complete("storscope", "ru"), ["run"])
        self.assertEqual(self.complete("storscope", "run", "--sui"), ["--suite"])
        self.assertEqual(self.complete("storscope", "run", "--suite", "pa"), ["paper"])
        self.assertEqual(sorted(self.complete("storscope", "run", "-t", "sim:sd-")),
                         ["sim:sd-a2", "sim:sd-consumer"])
        self.assertEqual(self.complete("storscope", "run", "--target", "po"), ["posix:"])
        self.assertEqual(sorted(self.complete("storscope", "run", "--tests", "B0,M")),
                         ["B0,M1", "B0,M2"])
        self.assertEqual(self.complete("storscope", "run", "--scale", ""), ["quick", "full"])
        self.assertEqual(sorted(self.complete("storscope", "list", "")),
                         ["devices", "suites", "targets", "tests"])
        self.assertEqual(self.complete("storscope", "compare", "--format", ""),
                         ["text", "md", "html"])
        self.assertEqual(sorted(self.complete("storscope", "log", "")), ["demo", "dump"])
        self.assertEqual(self.complete("storscope", "probe", "--pres"), ["--preserve"])
        self.assertEqual(self.complete("storscope", "run", "--runs", ""), [])  # a number

    def test_every_option_of_run_is_offered(self):
        help_text = run("run", "--help").stdout
        longs = set(re.findall(r"^\s+(?:-\w, )?(--[a-z0-9-]+)", help_text, re.M))
        self.assertGreater(len(longs), 25)
        offered = set(self.complete("storscope", "run", "--"))
        self.assertEqual(longs - offered, set())

    def test_one_table_makes_the_parser_help_man_page_and_completion(self):
        # issue 42/44: every command's options come from one table
        # (`storscope help --options`), so --help, the man page and Tab
        # offer each, and the parser takes it. Before the table, Tab did not
        # offer `log --allow-destructive`, `probe --output` or `report
        # --output`: the completions were scraped from the help texts.
        rows = [line.split("\t") for line in run("help", "--options").stdout.splitlines()]
        self.assertTrue(all(len(r) == 5 for r in rows), rows)
        cmds = {r[0] for r in rows}
        self.assertEqual(cmds, {"run", "probe", "report", "compare", "log", "plan", "fit", "db"})
        man = os.path.join(os.path.dirname(BIN), "storscope.1")
        with open(man) as f:
            page = f.read().replace("\\-", "-")
        for cmd in sorted(cmds):
            with self.subTest(cmd=cmd):
                words = ["storscope", cmd] + {"log": ["dump"], "db": ["list"]}.get(cmd, [])
                help_ = run(*words[1:], "--help").stdout
                self.assertEqual([l for l in help_.splitlines() if len(l) > 80], [])
                offered = set(self.complete(*words, "-"))
                for _, name, letter, kind, choices in (r for r in rows if r[0] == cmd):
                    self.assertRegex(help_, r"(?m)^  (%s, |    )%s\b" % (
                        re.escape(letter) if letter != "-" else "  ", re.escape(name)))
                    self.assertIn(name, page)
                    self.assertIn(name, offered)
                    if letter != "-":
                        self.assertIn(letter, offered)
                    if kind == "words":  # Tab offers its words after it
                        self.assertEqual(self.complete(*words, name, ""), choices.split("|"))
                    # the parser takes the name: a flag and then a bogus
                    # option stops at the bogus one; a valued option without
                    # its value says it needs one
                    if kind in ("flag", "optional"):  # optional: its value is --name=V
                        r = run(*words[1:], name, "--bogus-after")
                        self.assertIn("unknown option '--bogus-after'", r.stderr, name)
                    else:
                        r = run(*words[1:], name)
                        self.assertIn("'%s' needs a value" % name, r.stderr, name)
                    self.assertEqual(r.returncode, 2, name)

    def test_the_zsh_completion_parses(self):
        if not shutil.which("zsh"):
            self.skipTest("zsh is not installed (scripts/deps.sh installs it)")
        r = subprocess.run(["zsh", "-n", self.zsh], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.zsh) as f:
            text = f.read()
        self.assertTrue(text.startswith("#compdef storscope"))
        self.assertIn("sim\\:sd-consumer", text)
