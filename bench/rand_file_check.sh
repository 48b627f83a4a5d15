#!/bin/sh
# Is fio's random 64 KiB read faster on its own file than on one written as
# storscope's rand and bench/rand_vs_fio.py's Python clock write theirs (one
# sequential write + fsync)? Alternated, ROUNDS rounds; prints each run's
# clat p50 in us.   bench/rand_file_check.sh DIR [ROUNDS]
set -eu
cd "$1"
rounds=${2:-10}
trap 'rm -f fio.dat plain.dat' EXIT INT TERM
f() {
    fio --output-format=json --name=r --filename="$1" --rw=randread --bs=65536 --size=16M \
        --ioengine=psync --iodepth=1 --direct=1 --number_ios=768 --randrepeat=1 |
        python3 -c "import json,sys;j=json.load(sys.stdin)['jobs'][0]['read'];print('$1', j['clat_ns']['percentile']['50.000000']/1e3)"
}
i=1
while [ "$i" -le "$rounds" ]; do
    rm -f fio.dat plain.dat
    python3 -c "
import os
with open('plain.dat', 'wb') as fh:
    fh.write(os.urandom(16 << 20))
    os.fsync(fh.fileno())"
    if [ $((i % 2)) = 0 ]; then f plain.dat; f fio.dat; else f fio.dat; f plain.dat; fi
    i=$((i + 1))
done
