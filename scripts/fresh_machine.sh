#!/bin/sh
# Proves the README's two commands on a fresh Debian 12: debootstraps a
# minimal bookworm (the Debian mirror this machine's apt uses) into a
# folder, copies the committed tree in (git archive HEAD), then
#   1. as a user who is not root: ./scripts/run.sh must stop, naming the
#      missing packages and the one apt-get line to run;
#   2. as root: that very line, then the user's ./scripts/run.sh must build,
#      run the main job and write results.json;
#   3. in a second copy of the fresh system, as root: ./scripts/run.sh from
#      nothing (it installs what it needs itself);
#   4. there, a short part of ./scripts/test.sh: its package set, the Debug
#      build and the portable unit tests;
#   5. in a third copy: the .deb that scripts/package.sh builds, installed
#      with apt (which brings what it depends on), then `storscope run`.
# Needs root (debootstrap, chroot, mounts). Nothing is cached between runs.
#   scripts/fresh_machine.sh [--keep]      (--keep leaves the folder for a look)
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "fresh_machine.sh: run as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
top=$(mktemp -d /var/tmp/storscope-fresh.XXXXXX)
mounted=""
cleanup() {
    for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
    [ "${1:-}" = keep ] || rm -rf "$top"
}
trap cleanup EXIT
t0=$(date +%s)
step() { echo "== fresh machine ($(($(date +%s) - t0)) s): $*"; }

step "debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase bookworm "$top/pristine" "$mirror" >"$top/debootstrap.log" 2>&1 ||
    { tail -n 20 "$top/debootstrap.log" >&2; exit 1; }
enter() { # enter ROOT: mounts what a system has, once
    for d in proc dev sys; do
        mount --bind "/$d" "$1/$d"
        mounted="$1/$d $mounted"
    done
    cp /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
}
cp -a "$top/pristine" "$top/user"
cp -a "$top/pristine" "$top/root"
cp -a "$top/pristine" "$top/deb"
enter "$top/deb"
for r in user root; do
    mkdir -p "$top/$r/src"
    git archive HEAD | tar -x -C "$top/$r/src"
    enter "$top/$r"
done

step "1. a user who is not root runs ./scripts/run.sh"
chroot "$top/user" useradd -m -s /bin/sh builder
chroot "$top/user" chown -R builder /src
if chroot "$top/user" su builder -c "cd /src && ./scripts/run.sh" >"$top/user1.out" 2>&1; then
    echo "run.sh succeeded without its packages" >&2
    exit 1
fi
line=$(sed -n 's/^storscope: as root, run: //p' "$top/user1.out")
[ -n "$line" ] || { cat "$top/user1.out" >&2; echo "no install line printed" >&2; exit 1; }
# (a minimal Debian has no sudo: the line is root's, with su -c beside it)
grep -q "su -c '$line'" "$top/user1.out" || { cat "$top/user1.out" >&2; exit 1; }
echo "   printed: as root, run: $line"

step "2. root runs the printed line; the user's ./scripts/run.sh again"
chroot "$top/user" sh -c "export DEBIAN_FRONTEND=noninteractive; $line" \
    >"$top/apt.log" 2>&1 || { tail -n 20 "$top/apt.log" >&2; exit 1; }
chroot "$top/user" su builder -c "cd /src && ./scripts/run.sh" >"$top/user2.out" 2>&1 ||
    { tail -n 30 "$top/user2.out" >&2; exit 1; }
grep -q "Guidelines for this device" "$top/user2.out"
grep -q "storscope is /src/build/run/storscope (not on PATH" "$top/user2.out" # said where
test -s "$top/user/src/results.json"
echo "   the main job ran: $(wc -l <"$top/user2.out") lines, results.json written"

step "3. root runs ./scripts/run.sh from nothing"
chroot "$top/root" sh -c "cd /src && ./scripts/run.sh" >"$top/root.out" 2>&1 ||
    { tail -n 30 "$top/root.out" >&2; exit 1; }
grep -q "Guidelines for this device" "$top/root.out"
sed -n '/^storscope /,$p' "$top/root.out"

step "4. a short part of ./scripts/test.sh: its packages, Debug, the portable unit tests"
chroot "$top/root" sh -c "cd /src && scripts/deps.sh && cmake --preset debug >/dev/null &&
    cmake --build --preset debug -j$(nproc) >/dev/null && ctest --preset debug -R '^(unit|host)$'" \
    >"$top/test.out" 2>&1 || { tail -n 30 "$top/test.out" >&2; exit 1; }
grep -E "tests passed" "$top/test.out"

step "5. the package: built here, installed there with apt, then storscope run"
scripts/package.sh >"$top/package.out" 2>&1 || { tail -n 30 "$top/package.out" >&2; exit 1; }
deb=$(ls build/deb/storscope_*.deb)
cp "$deb" "$top/deb/tmp/"
chroot "$top/deb" sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
    apt-get install -y -qq /tmp/$(basename "$deb")" >"$top/deb.log" 2>&1 ||
    { tail -n 20 "$top/deb.log" >&2; exit 1; }
chroot "$top/deb" sh -c "cd /tmp && storscope run -o r.json && test -s r.json &&
    test -f /usr/share/man/man1/storscope.1.gz &&
    test -f /usr/share/bash-completion/completions/storscope &&
    test -f /usr/share/zsh/vendor-completions/_storscope" >"$top/deb.out" 2>&1 ||
    { tail -n 30 "$top/deb.out" >&2; exit 1; }
echo "   $(basename "$deb") installed; storscope run: $(grep -c . "$top/deb.out") lines, results written"
sed -n '/^lintian:/,$p' "$top/package.out" | grep -v "root privileges" | head -n 20
step "passed"
[ "${1:-}" = --keep ] && { trap - EXIT; cleanup keep; echo "left in $top"; }
exit 0
