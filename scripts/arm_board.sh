#!/bin/sh
# An ARM Linux board, emulated with its real kernel (issue 45): Debian's
# armhf kernel (linux-image-armmp, through multiarch) with its device tree
# boots under qemu-system-arm as ARM's Versatile Express (Cortex-A9), with
# an initramfs holding busybox and the armhf storscope. Inside it probes
# the SD card on the board's MMCI through the kernel's MMC stack (identity
# checked against the kernel's own decoding of the CID), runs sensorlog on
# it, runs the probe's writing steps with --preserve (the card's bytes
# unchanged), and runs mtd: on the kernel's nandsim (a 1 Gbit SLC NAND with
# factory bad blocks). Ends with "N passed, 0 failed" and names what it did
# not run and why. The same harness on a PC board (the host's storscope,
# Debian's amd64 kernel, NOR through mtdram, mtd-utils) is ctest vm-kernel.
#   scripts/arm_board.sh        (as root, installs what is missing)
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh --only gcc-arm-linux-gnueabihf libc6-dev-armhf-cross libcjson-dev:armhf \
    qemu-system-arm cpio binutils python3 cmake pkg-config
if [ ! -x build/linux-armhf/storscope ]; then
    cmake --preset linux-armhf >/dev/null
    cmake --build --preset linux-armhf -j"$(nproc)" --target storscope_cli >/dev/null
fi
exec python3 tests/vm/kernel_vm.py build/linux-armhf/storscope --board vexpress-a9 \
    --cache build/vm-cache "$@"
