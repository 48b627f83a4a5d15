#!/usr/bin/env python3
"""Runs every command README.md shows a user, as written, in order, in a
scratch directory (issue 44: commands that used files nothing made, a
pipe that was not one, a binary run.sh does not build).

    scripts/readme_commands.py BUILD_DIR      # the directory holding storscope

What is taken: each line of an indented block in the sections a user reads
(from "Using storscope" on) that starts with `storscope`, `build/`,
`truncate` or `cmake --build`; a line continuing with `&&` is one command.
Left to others: ./scripts/run.sh and test.sh (CI runs them, fresh_machine.sh
on a fresh Debian), "Building by hand" (the build CI does), cross.sh and
package.sh (CI runs them).

The placeholders a reader replaces with their own device are replaced with
fixtures, said on each line: posix:/mnt/X a directory, raw:/dev/X an image
file. Every command runs under `timeout -s INT` (CAP s): Ctrl-C is a way
storscope ends (exit 130, finished points kept), so a long one counts when
it was still running. Each must end 0, or 130 at the cap, or with the exit
README's own comment gives it ("exit 1: ...", a counterfeit's 1).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

CAP = int(os.environ.get("README_CAP", "90"))
FIRST = "## Using storscope"
LAST = "## Building by hand"
TAKE = re.compile(r"^(storscope |build/|truncate |cmake --preset release)")


def commands(readme):
    text = open(readme).read()
    part = text[text.index(FIRST):text.index(LAST)]
    # (the block between "Building by hand" and the end holds build lines)
    out = []
    for line in part.split("\n"):
        if not line.startswith("    "):
            continue
        cmd = line.strip()
        if TAKE.match(cmd):
            out.append(cmd)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: readme_commands.py BUILD_DIR")
    bindir = os.path.abspath(sys.argv[1])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.access(os.path.join(bindir, "storscope"), os.X_OK):
        sys.exit("readme_commands.py: no storscope in %s" % bindir)
    work = tempfile.mkdtemp(prefix="readme.")
    try:
        fix = {}
        for d in ("mnt/sdcard", "mnt/emmc"):
            os.makedirs(os.path.join(work, "fixtures", d))
            fix["/" + d] = os.path.join(work, "fixtures", d)
        os.makedirs(os.path.join(work, "fixtures", "dev"))
        for dev, size in (("mmcblk1", 256 << 20), ("sdb", 64 << 20)):
            path = os.path.join(work, "fixtures", "dev", dev)
            with open(path, "wb") as f:
                f.truncate(size)
            fix["/dev/" + dev] = path
        # the build directories the README names are the repository's
        os.symlink(os.path.join(top, "build"), os.path.join(work, "build"))
        for name in ("CMakePresets.json", "CMakeLists.txt"):
            os.symlink(os.path.join(top, name), os.path.join(work, name))
        # the results archive README's db commands make goes to the scratch
        # directory, not the account's own ($XDG_DATA_HOME/storscope)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
                   XDG_DATA_HOME=os.path.join(work, "data"))
        failed = 0
        for cmd in commands(os.path.join(top, "README.md")):
            line = cmd.split("  #")[0].strip()
            comment = cmd.split("  #", 1)[1] if "  #" in cmd else ""
            said = line
            for k, v in fix.items():
                line = re.sub(re.escape(k) + r"\b", v, line)
            allowed = {0, 130, 124}
            m = re.search(r"exit (\d)", comment)
            if m:
                allowed.add(int(m.group(1)))
            if "fake=" in line and "probe" in line:
                allowed.add(1)  # a counterfeit's exit (probe --help)
            # cmake's own: its preset configures into the repository's build/
            run_in = top if line.startswith("cmake") else work
            r = subprocess.run(["timeout", "-s", "INT", str(CAP), "sh", "-c", line],
                               cwd=run_in, env=env, capture_output=True, text=True)
            ok = r.returncode in allowed and "command not found" not in r.stderr
            state = "ok" if ok else "FAILED"
            note = " (stopped at the %d s cap)" % CAP if r.returncode in (124, 130) else ""
            subst = "" if line == said else "   [fixtures: %s]" % ", ".join(
                k for k in fix if k in said)
            print("%-6s exit %3d%s  %s%s" % (state, r.returncode, note, said, subst))
            if not ok:
                failed += 1
                sys.stdout.write("".join("       | " + l + "\n"
                                         for l in (r.stderr or r.stdout).splitlines()[-8:]))
        print("%d README commands failed" % failed if failed else "every README command ran")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
