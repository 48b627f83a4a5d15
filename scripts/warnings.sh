#!/bin/sh
# The whole tree (library, CLI, tests, benches) with warnings as errors
# under the compilers and levels a packager may use: gcc 12 at -O3 (the
# presets cover -O0 and -O2) and clang 14 at -O2 and -O3. CI runs it.
set -eu
cd "$(dirname "$0")/.."
command -v clang >/dev/null || { echo "warnings.sh: needs clang (apt-get install -y clang)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for cc_level in gcc:-O3 clang:-O2 clang:-O3; do
    cc=${cc_level%%:*} level=${cc_level#*:}
    CC=$cc cmake -S . -B "$work/$cc$level" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS_RELEASE="$level -DNDEBUG" -DSTORSCOPE_WERROR=ON >/dev/null
    cmake --build "$work/$cc$level" -j"$(nproc)" >"$work/log" 2>&1 ||
        { grep -E "error|warning" "$work/log" | head -n 30 >&2; exit 1; }
    echo "$cc $level: no warnings"
done
