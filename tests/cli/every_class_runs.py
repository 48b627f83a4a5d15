#!/usr/bin/python3
"""Every test class of test_cli.py runs in some ctest entry: the entries
name their classes (tests/CMakeLists.txt, cli-*), and a class named in none
never ran (S2OnASmallVolume and ProgressLine were added so, in session 29).
    every_class_runs.py TESTS_DIR"""
import re
import sys

tests = sys.argv[1]
source = open(tests + "/cli/test_cli.py").read()
cmake = open(tests + "/CMakeLists.txt").read()
# a class with test methods: what unittest would collect
classes = {m.group(1) for m in re.finditer(r"^class (\w+)\([^)]*\):\n(?:(?!^class ).*\n)*?    def test_",
                                            source, re.M)}
listed = set()
for group in re.findall(r'"[a-z-]+;([A-Za-z0-9 ]+)"', cmake):
    listed |= set(group.split())
missing = sorted(classes - listed)
unknown = sorted(listed - {m for m in re.findall(r"^class (\w+)\(", source, re.M)})
for name in missing:
    print("test_cli.py's class %s runs in no ctest entry (tests/CMakeLists.txt, cli-*)" % name)
for name in unknown:
    print("tests/CMakeLists.txt names %s, which test_cli.py does not define" % name)
print("%d classes with tests, %d in no entry, %d names unknown"
      % (len(classes), len(missing), len(unknown)))
sys.exit(1 if missing or unknown else 0)
