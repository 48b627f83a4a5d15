#!/bin/sh
# Reruns the README's main command (what ./scripts/run.sh runs, on the
# Release build it makes) and puts its screen into README.md between the
# first-screen markers. Virtual time: the figures repeat exactly.
set -eu
cd "$(dirname "$0")/.."
cmake --preset run >/dev/null
cmake --build --preset run --target storscope_cli -j"$(nproc)" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$out" && sh "$OLDPWD/scripts/main_job.sh" "$OLDPWD/build/run/storscope") >"$out/screen.txt"
python3 - "$out/screen.txt" <<'PY'
import re, sys
screen = open(sys.argv[1]).read().rstrip("\n")
readme = open("README.md").read()
begin = "<!-- first-screen: scripts/first_screen.sh -->\n"
end = "<!-- /first-screen -->"
block = begin + "\n" + "\n".join("    " + l if l else "" for l in screen.split("\n")) + "\n\n" + end
readme = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: block, readme, flags=re.S)
open("README.md", "w").write(readme)
PY
echo "README.md: first screen updated ($(wc -l <"$out/screen.txt") lines)"
