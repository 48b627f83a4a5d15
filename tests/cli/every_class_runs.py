#!/usr/bin/python3
"""Every test class of the CLI tests (tests/cli/cli_*.py, run through
test_cli.py) runs in some ctest entry: the entries
name their classes (tests/CMakeLists.txt, cli-*), and a class named in none
never ran (S2OnASmallVolume and ProgressLine were added so, in session 29).
    every_class_runs.py TESTS_DIR"""
import glob
import re
import sys

tests = sys.argv[1]
source = "\n".join(open(f).read() for f in sorted(glob.glob(tests + "/cli/cli_*.py")))
cmake = open(tests + "/CMakeLists.txt").read()
# a class with test methods: what unittest would collect
classes = {m.group(1) for m in re.finditer(r"^class (\w+)\([^)]*\):\n(?:(?!^class ).*\n)*?    def test_",
                                            source, re.M)}
listed = set()
for group in re.findall(r'"[a-z-]+;([A-Za-z0-9 ]+)"', cmake):
    listed |= set(group.split())
missing = sorted(classes - listed)
unknown = sorted(listed - {m for m in re.findall(r"^class (\w+)\(", source, re.M)})
# a module test_cli.py does not import runs in no entry either
entry = open(tests + "/cli/test_cli.py").read()
unimported = sorted(m for m in (f.rsplit("/", 1)[1][:-3] for f in glob.glob(tests + "/cli/cli_*.py"))
                    if m != "cli_base" and not re.search(r"^from %s import \*" % m, entry, re.M))
for mod in unimported:
    print("tests/cli/%s.py is not imported by test_cli.py: its classes never run" % mod)
for name in missing:
    print("the CLI tests' class %s runs in no ctest entry (tests/CMakeLists.txt, cli-*)" % name)
for name in unknown:
    print("tests/CMakeLists.txt names %s, which no tests/cli/cli_*.py defines" % name)
print("%d classes with tests, %d in no entry, %d names unknown"
      % (len(classes), len(missing), len(unknown)))
sys.exit(1 if missing or unknown or unimported else 0)
