#!/bin/sh
# Screenshots of the HTML report (the paper suite on the study's medium
# through sensorlog; the study's published figures, tests/fixtures/study.json;
# S1, M2 and L1 on the study's medium) and of `compare --format html` in a real
# browser (headless Chromium), into docs/images: what a reviewer checks the
# report's design by (issue 15.8). Virtual-time runs on simulated media, so
# the figures repeat. Needs chromium (apt-get install chromium) and gnuplot.
#   scripts/report_screenshots.sh
set -eu
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target storscope_cli -j"$(nproc)" >/dev/null
bin=$PWD/build/release/storscope
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "needs chromium: apt-get install chromium" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work"
"$bin" run -q -t sim:emmc-stm32u5+sensorlog -o logger.json >/dev/null
"$bin" report logger.json -o report.html >/dev/null
"$bin" report "$OLDPWD/tests/fixtures/study.json" -o study.html >/dev/null
"$bin" run -q -t sim:emmc-stm32u5,capacity=1G+sensorlog --tests S1,M2,L1 -o system.json >/dev/null
"$bin" report system.json -o system.html >/dev/null
"$bin" run -q -t sim:emmc-stm32u5,capacity=1G --tests B0,B2,fsync --runs 3 --duration 2s \
    -o emmc.json >/dev/null
"$bin" run -q -t sim:sd-consumer,capacity=1G --tests B0,B2,fsync --runs 3 --duration 2s \
    -o sd.json >/dev/null
"$bin" compare --format html emmc.json sd.json >compare.html
shot() { # page width height out
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$2,$3" --screenshot="$4" "file://$work/$1" >/dev/null 2>&1
}
shot report.html 1100 4400 "$OLDPWD/docs/images/report.png"
shot study.html 1100 2600 "$OLDPWD/docs/images/report-study.png"
shot system.html 1100 3600 "$OLDPWD/docs/images/report-system.png"
shot compare.html 1100 520 "$OLDPWD/docs/images/compare.png"
echo "docs/images: report.png, report-study.png, report-system.png, compare.png"
