#!/bin/sh
# Mutation test: each mutant of tests/mutants.txt applied alone to a scratch
# copy of the tree, the unit tests built and run against it; a mutant is
# killed when they fail or run past 120 s (15 times their time unmutated
# in a debug build); a mutant that does not build is "stillborn", not counted.
#
#   scripts/mutate.sh [--only N,M,...] [--rotate K] [--keep] | --check
#     --check       only whether each mutant still applies: its text occurs
#                   exactly once in its file (ctest mutants-apply; code moved
#                   to another file left mutants that no run could apply)
#     --only N,...  these mutants (1-based, in the file's order)
#     --rotate K    K mutants, a different K each day (what CI runs)
#     --keep        leave the scratch copy (its path is printed)
#
# Prints one line a mutant and the kill rate; exits 1 when a mutant that is
# not marked equivalent survives. The scratch copy is removed on exit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
list="$top/tests/mutants.txt"
only="" rotate=0 keep=0
while [ $# -gt 0 ]; do
    case $1 in
    --only) only=$2; shift 2 ;;
    --rotate) rotate=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --check)
        exec python3 - "$top" "$list" <<'PY'
import sys
top, path = sys.argv[1], sys.argv[2]
stale = n = 0
for line in open(path).read().split("\n"):
    if not line or line.startswith("#"):
        continue
    n += 1
    f, frm = line.split("\t")[:2]
    frm = frm.replace("\\n", "\n")
    try:
        count = open(top + "/" + f).read().count(frm)
    except OSError:
        count = -1
    if count != 1:
        stale += 1
        print("mutant %d (%s): its text occurs %s, not once" % (n, f, "nowhere: no such file" if count < 0 else "%d times" % count))
print("%d mutants, %d that no longer apply" % (n, stale))
sys.exit(1 if stale else 0)
PY
        ;;
    *) echo "usage: scripts/mutate.sh [--only N,M,...] [--rotate K] [--keep] | --check" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/storscope-mutate.XXXXXX")
cleanup() { [ "$keep" = 1 ] && echo "scratch copy kept: $work" >&2 || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
# the tracked files as they are now (uncommitted edits included), no build
(cd "$top" && git ls-files -z | xargs -0 tar cf -) | (cd "$work" && tar xf -)
cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=Debug -DSTORSCOPE_WERROR=OFF \
    >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" --target storscope_unit -j"$(nproc)" >"$work/build.log" 2>&1 ||
    { tail -n 30 "$work/build.log" >&2; echo "the unmutated tree does not build" >&2; exit 1; }
"$work/build/tests/storscope_unit" >"$work/clean.log" 2>&1 ||
    { tail -n 20 "$work/clean.log" >&2; echo "the unit tests fail without a mutant" >&2; exit 1; }

total=$(grep -cv '^\(#\|$\)' "$list")
pick=$(python3 - "$total" "$only" "$rotate" <<'PY'
import sys, time
total, only, rotate = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if only:
    ids = [int(x) for x in only.split(",")]
elif rotate:
    day = int(time.time() // 86400)
    ids = [(day * rotate + k) % total + 1 for k in range(min(rotate, total))]
else:
    ids = range(1, total + 1)
print(" ".join(str(i) for i in ids))
PY
)
killed=0 survived=0 stillborn=0 equivalent=0 n=0
for id in $pick; do
    n=$((n + 1))
    line=$(grep -v '^\(#\|$\)' "$list" | sed -n "${id}p")
    [ -n "$line" ] || { echo "mutant $id: no such line in tests/mutants.txt" >&2; exit 2; }
    file=$(printf '%s' "$line" | cut -f1)
    what=$(printf '%s' "$line" | cut -f4)
    # apply: FROM must occur exactly once
    if ! python3 - "$work/$file" "$line" <<'PY'
import sys
path, line = sys.argv[1], sys.argv[2]
f, frm, to = line.split("\t")[:3]
frm, to = frm.replace("\\n", "\n"), to.replace("\\n", "\n")
text = open(path).read()
if text.count(frm) != 1:
    sys.stderr.write("%s: the mutant's text occurs %d times, not once\n" % (f, text.count(frm)))
    sys.exit(1)
open(path + ".orig", "w").write(text)
open(path, "w").write(text.replace(frm, to))
PY
    then
        echo "mutant $id ($file): cannot be applied - tests/mutants.txt is out of date" >&2
        exit 2
    fi
    if ! cmake --build "$work/build" --target storscope_unit -j"$(nproc)" >"$work/m.log" 2>&1; then
        verdict=stillborn
        stillborn=$((stillborn + 1))
    elif timeout 120 "$work/build/tests/storscope_unit" >"$work/m.log" 2>&1; then
        case $what in
        *equivalent:*) verdict="equivalent" equivalent=$((equivalent + 1)) ;;
        *) verdict=SURVIVED survived=$((survived + 1)) ;;
        esac
    else
        verdict=killed
        killed=$((killed + 1))
    fi
    # back to the original, with a new mtime: the .orig file is older than
    # the mutant's object, and make would keep that object for the next
    # mutant (every verdict after the first was the sum of two mutants)
    mv "$work/$file.orig" "$work/$file"
    touch "$work/$file"
    printf '%3d %-9s %-28s %s\n' "$id" "$verdict" "$file" "$what"
done
# the tree is the unmutated one again: rebuild so a --keep copy is sound
cmake --build "$work/build" --target storscope_unit -j"$(nproc)" >"$work/build.log" 2>&1 || true
counted=$((killed + survived))
echo "mutants: $n run, $killed killed, $survived survived, $equivalent equivalent," \
     "$stillborn stillborn; kill rate $killed of $counted"
[ "$survived" -eq 0 ]
