#!/bin/sh
# The fault image must crash, the handler must say so, and QEMU must exit
# non-zero: a crash can never pass as a success.
qemu=$1 elf=$2
out=$(timeout 120 "$qemu" -M mps2-an505 -nographic -semihosting-config enable=on,target=native \
    -icount shift=0,sleep=off -kernel "$elf" </dev/null 2>&1)
rc=$?
echo "$out"
echo "exit code $rc"
[ "$rc" -ne 0 ] && echo "$out" | grep -q 'FAULT: pc='
