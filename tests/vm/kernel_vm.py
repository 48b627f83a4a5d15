#!/usr/bin/python3
"""storscope against a real Linux kernel's MTD and MMC drivers (issue 45):
Debian's own kernel boots under QEMU with an initramfs holding storscope,
busybox and mtd-utils. An SD card (QEMU's sd-card behind an SDHCI
controller on PCI) is /dev/mmcblk0 through the kernel's sdhci-pci, mmc_core
and mmc_block: `storscope probe` reads its identity from the registers the
kernel exposes (checked against the kernel's own decoding of them), and
sensorlog runs on it with O_DIRECT. The kernel's mtdram (a NOR-like chip in RAM) and nandsim (a
1 Gbit SLC NAND with 2 KiB pages and 128 KiB blocks, through the kernel's
real raw-NAND layer, its ECC and bad-block handling) become /dev/mtd0 and
/dev/mtd1, and `mtd:` runs on them: bare extents and sensorlog, read-only
refusals, a log read back by `storscope log dump` from a copy of the chip,
and the refusals of a partition in use (JFFS2 mounted, UBI attached).

usage: kernel_vm.py STORSCOPE [--kernel-deb DEB] [--cache DIR] [-v]

The kernel is Debian's linux-image-*-amd64 (the host's architecture, so
the same storscope binary runs inside, under
QEMU's emulation, or KVM with --kvm). Without a kernel package (no --kernel-deb, none in the
cache, and `apt-get download` cannot reach a mirror) or without
qemu-system-x86_64, busybox-static or mtd-utils, it says which is missing
and exits 77 (ctest: skipped, with that reason)."""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from vm_packages import copy_program, fetch_deb, module_deps, skip  # noqa: E402

NAND_BAD_BLOCKS = "0,21,517"  # erase blocks of 128 KiB: in segments 0, 2 and 64
SD_BYTES = 64 << 20
HERE = os.path.dirname(os.path.abspath(__file__))


# What a log on {dev} holds, per stream: its count, first and last
# timestamp, and how many steps were not the stream's period
DUMP_STREAMS = (
    "rm -f /tmp/d.csv; storscope log dump {dev} --csv > /tmp/d.csv; rc=$?; "
    "awk -F, 'NR > 1 {{ s = $2; if (!(s in n)) {{ n[s] = 0; first[s] = $3 }} "
    "else if (n[s] == 1) step[s] = $3 - last[s]; else if ($3 - last[s] != step[s]) bad[s]++; "
    "n[s]++; last[s] = $3 }} END {{ for (s in n) printf \"stream %s %d %s %s %d\\n\", "
    "s, n[s], first[s], last[s], bad[s] }}' /tmp/d.csv; exit $rc")

# Each case: a name, what the board must have for it ("" nothing more,
# "nor" the kernel's mtdram, "utils" mtd-utils), and a shell command run
# inside the VM ({nor}, {nand}: the MTD devices; {nand_index}: N of the
# NAND's /dev/mtdN). What its output must show is checked on the host.
CASES = [
    ("proc_mtd", "", "cat /proc/mtd; echo bad_blocks $(cat /sys/class/mtd/mtd{nand_index}/bad_blocks)"),
    ("mtd_debug", "utils", "mtd_debug info {nor}; mtd_debug info {nand}"),
    ("nor_log_refused_read_only", "nor",
     "storscope run -t mtd:{nor}+sensorlog --tests B0 -o /tmp/x.json"),
    ("nor_bare_read_only", "nor",
     "storscope run -q -t mtd:{nor} --tests M1 --runs 1 -o /tmp/j.json"),
    ("nor_sensorlog", "nor",
     "storscope run -q -t mtd:{nor}+sensorlog --tests B0,M1 --verify --allow-destructive "
     "-o /tmp/j.json"),
    # a line a record: the head says what the log holds
    ("nor_log_dump", "nor", "cat {nor} > /tmp/chip.img && storscope log dump /tmp/chip.img "
     "> /tmp/dump.txt; rc=$?; head -n 12 /tmp/dump.txt; wc -l < /tmp/dump.txt; exit $rc"),
    # over the log just written: bare extents erase each block before its
    # first program
    ("nor_bare_write", "nor",
     "storscope run -q -t mtd:{nor} --tests B1 --verify --allow-destructive --runs 1 "
     "-o /tmp/j.json"),
    ("nand_bare_refused", "", "storscope run -t mtd:{nand} --tests B0 --allow-destructive "
     "-o /tmp/x.json"),
    ("nand_sensorlog", "",
     "storscope run -q -t mtd:{nand}+sensorlog --tests B0,M1 --verify --allow-destructive "
     "-o /tmp/j.json"),
    # the chip now holds that log: a new one is formatted over it, and its
    # blocks must be erased first (the kernel's NAND layer refuses a second
    # program of a page)
    ("nand_sensorlog_again", "",
     "storscope run -q -t mtd:{nand}+sensorlog --tests B1 --verify --allow-destructive "
     "--runs 1 -o /tmp/j.json"),
    # `log demo` and `log dump` on the board's NOR itself (/dev/mtdN through
    # mtd:, erased with MEMERASE), as a logger's owner would look at it: 5 s
    # of the demo's streams, every record read back. (Raw NAND is refused:
    # mtd: opens it only under a store, and `log` takes the bare device)
    ("nor_log_demo", "nor", "storscope log demo {nor} --allow-destructive --seconds 5 && " +
     DUMP_STREAMS.format(dev="{nor}")),
    ("nor_jffs2_mounted", "nor utils",
     "flash_erase -q {nor} 0 0 && mount -t jffs2 mtd0 /mnt && "
     "storscope run -t mtd:{nor} --tests M1 -o /tmp/x.json; rc=$?; umount /mnt; exit $rc"),
    ("nand_ubi_attached", "utils",
     "flash_erase -q {nand} 0 0 && ubiattach -m {nand_index} >/dev/null && "
     "storscope run -t mtd:{nand}+sensorlog --allow-destructive --tests B0 -o /tmp/x.json; "
     "rc=$?; ubidetach -m {nand_index}; exit $rc"),
    ("not_an_mtd", "", "storscope run -t mtd:/dev/mmcblk0 --tests M1 -o /tmp/x.json"),
    # the SD card: the kernel's decoding of its registers, then storscope's
    ("mmc_identity", "",
     "for a in type name manfid oemid serial date; do "
     "echo \"sys_$a $(cat /sys/block/mmcblk0/device/$a)\"; done; "
     "storscope probe raw:/dev/mmcblk0 -o /tmp/j.json"),
    ("mmc_sensorlog", "",
     "storscope run -q -t raw:/dev/mmcblk0,offset=1M+sensorlog,segment=512K --tests B0,M1 "
     "--verify --allow-destructive -o /tmp/j.json"),
    # the probe's writing steps on a card holding that log, every block put back
    ("mmc_probe_preserve", "",
     "sha256sum /dev/mmcblk0 > /tmp/before; "
     "storscope probe raw:/dev/mmcblk0 --allow-destructive --preserve -o /tmp/j.json; rc=$?; "
     "sha256sum /dev/mmcblk0 > /tmp/after; cmp -s /tmp/before /tmp/after && echo same-bytes; "
     "exit $rc"),
    # last: a logger on the card, synced once a second; the host cuts the
    # power (kills QEMU) after CUT_AFTER_SYNCS of its syncs returned
    ("mmc_cut", "", "{b2m_logger}storscope log demo /dev/mmcblk0 --allow-destructive "
     "--seconds 86400 --progress"),
]

# On a board with a disk under block2mtd (an MTD over a block device that
# survives the cut, unlike mtdram and nandsim in the guest's RAM), a second
# logger runs on that flash during the cut, its lines marked "b2m: ". block2mtd
# writes through the page cache, as any MTD driver with a write buffer would:
# what a sync returned must be on the disk. The card's logger starts once the
# flash's has synced (or after 120 s): started together, the flash's first
# sync came after 47 to 74 of the card's, against the 50 the cut waits for
# (its writeback queues behind the card's; alone it syncs within 3 s)
B2M_LOGGER = ("(storscope log demo $B2M --allow-destructive --seconds 86400 --progress 2>&1 | "
              "while read -r l; do echo \"b2m: $l\"; case \"$l\" in synced*) : > /tmp/b2m-up;; "
              "esac; done) & i=0; while [ ! -e /tmp/b2m-up ] && [ $i -lt 120 ]; do sleep 1; "
              "i=$((i + 1)); done; ")

# After the cut, booted again: every record the card kept, per stream (its
# count, first and last timestamp, and whether they rose by one period each)
AFTER_CUT = [("mmc_after_cut", DUMP_STREAMS.format(dev="/dev/mmcblk0")),
             ("b2m_after_cut", DUMP_STREAMS.format(dev="$B2M"))]
CUT_AFTER_SYNCS = 5
LIVE = {"mmc_cut"}

# The boards: QEMU machine, Debian kernel package, console, the SD card's
# controller, the modules to load, what the board has.
BOARDS = {
    # a PC: Debian's amd64 kernel, an SD card behind sdhci-pci, mtdram (a
    # NOR-like chip) and nandsim, and mtd-utils from the host
    "pc": {"qemu": ["qemu-system-x86_64", "-m", "1024", "-smp", "2", "-cpu", "max"],
           "kernel": "linux-image-amd64", "arch": "amd64", "console": "ttyS0",
           "sd": ["-drive", "if=none,id=card,format=raw,file={sd}", "-device", "sdhci-pci",
                  "-device", "sd-card,drive=card"],
           "b2m": ["-drive", "if=none,id=b2m,format=raw,file={b2m}", "-device",
                   "virtio-blk-pci,drive=b2m"],
           "modules": ["mtdram", "nandsim", "mtdblock", "jffs2", "ubi", "sdhci_pci",
                       "mmc_block", "virtio_pci", "virtio_blk", "block2mtd"],
           "has": {"nor", "utils", "b2m"}, "nor": "/dev/mtd0", "nand_index": 1, "lacks": ""},
    # an ARM board (Cortex-A9, ARM's Versatile Express): Debian's armhf
    # kernel with its device tree, the SD card on the PL181 MMCI. Debian's
    # armhf kernel has no CFI flash driver and no mtdram: the NAND is the
    # board's one MTD device
    "vexpress-a9": {"qemu": ["qemu-system-arm", "-M", "vexpress-a9", "-m", "1024"],
                    "kernel": "linux-image-armmp", "arch": "armhf", "console": "ttyAMA0",
                    "dtb": "vexpress-v2p-ca9.dtb",
                    "sd": ["-drive", "if=sd,format=raw,file={sd}"],
                    "modules": ["armmmci", "nandsim"],
                    "has": set(), "nor": None, "nand_index": 0,
                    "lacks": "Debian's armhf kernel has no CFI flash driver and no mtdram (the "
                             "NOR cases run on pc), and mtd-utils is the host's (the JFFS2, UBI "
                             "and mtd_debug cases run on pc)"},
}

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp; mkdir -p /mnt
export PATH=/bin:/usr/bin:/usr/sbin:/sbin HOME=/tmp
for m in $(cat /modules.order); do
    insmod /lib/mod/$m.ko $(grep "^$m " /modules.params | cut -d' ' -f2-) || echo "@@INSMOD $m failed"
done
# the card is found after its controller's driver loads, asynchronously:
# a case that opens it at once can find no /dev/mmcblk0 (CI56's boot after
# the cut did)
i=0; while [ ! -b /dev/mmcblk0 ] && [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done
[ -b /dev/mmcblk0 ] || echo "@@NO_CARD after ${i} s"
# a board with block2mtd: its disk as an MTD of 64 KiB erase blocks
B2M=
if [ -e /sys/module/block2mtd ]; then
    i=0; while [ ! -b /dev/vda ] && [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done
    echo /dev/vda,64KiB > /sys/module/block2mtd/parameters/block2mtd
    B2M=/dev/$(grep block2mtd /proc/mtd | cut -d: -f1)
    [ -c "$B2M" ] || echo "@@NO_B2M"
fi
echo "@@BOOTED $(uname -r)"
# the boot after a power cut runs the cases that look at what it left
if grep -q storscope_after_cut /proc/cmdline; then . /cases_after_cut.sh; else . /cases.sh; fi
echo "@@DONE"
poweroff -f
"""


def write_cases(path, cases, board, where):
    """The shell that runs the board's cases: each one's output, exit
    status and JSON between markers; a live case's output straight to the
    console (the host watches it), as the last one it runs."""
    ran = []
    where = dict(where, b2m_logger=B2M_LOGGER if "b2m" in board["has"] else "")
    with open(path, "w") as f:
        for name, needs, cmd in cases:
            if not set(needs.split()) <= board["has"]:
                continue
            ran.append(name)
            for key, value in where.items():  # (awk's braces are not placeholders)
                cmd = cmd.replace("{%s}" % key, str(value))
            if name in LIVE:
                f.write('echo "@@CASE %s"\n%s\necho "@@RC $?"\necho "@@END"\n' % (name, cmd))
                continue
            f.write('echo "@@CASE %s"\nrm -f /tmp/j.json\n( %s ) > /tmp/out 2>&1\n'
                    'echo "@@RC $?"\ncat /tmp/out\n'
                    'if [ -f /tmp/j.json ]; then echo "@@JSON"; cat /tmp/j.json; echo; fi\n'
                    'echo "@@END"\n' % (name, cmd))
    return ran


def build_initramfs(args, board, work, kroot):
    root = os.path.join(work, "root")
    for d in ("bin", "dev", "proc", "sys", "tmp", "lib/mod", "usr/bin"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    arch = board["arch"]
    if arch == "amd64":
        shutil.copy2(shutil.which("busybox"), os.path.join(root, "bin/busybox"))
    else:  # the board's own busybox, from its package (static: nothing else needed)
        bb = os.path.join(work, "busybox")
        subprocess.run(["dpkg-deb", "-x", fetch_deb(args, "busybox-static", arch), bb],
                       check=True)
        shutil.copy2(os.path.join(bb, "bin/busybox"), os.path.join(root, "bin/busybox"))
    copy_program(os.path.abspath(args.storscope), root, arch, "/usr/bin/storscope")
    if "utils" in board["has"]:
        for tool in ("flash_erase", "ubiattach", "ubidetach", "mtd_debug"):
            copy_program(shutil.which(tool), root)
    mods = {}
    for f in glob.glob(kroot + "/lib/modules/*/kernel/**/*.ko", recursive=True):
        mods[os.path.basename(f)[:-3].replace("-", "_")] = f
    order = []
    for m in board["modules"]:
        if m not in mods:
            skip("the kernel package has no %s.ko" % m)
        module_deps(mods, m, order)
    for m in order:
        shutil.copy2(mods[m], os.path.join(root, "lib/mod", m + ".ko"))
    with open(os.path.join(root, "modules.order"), "w") as f:
        f.write("\n".join(order) + "\n")
    with open(os.path.join(root, "modules.params"), "w") as f:
        # mtdram: 16 MiB in 64 KiB erase blocks (KiB); nandsim: Samsung's
        # 1 Gbit SLC (ID ec f1 00 15): 2 KiB pages, 128 KiB blocks, the
        # chip sim:nand-slc models, with three factory bad blocks (marked in
        # their spare area, as a chip ships), one of them the first
        f.write("mtdram total_size=16384 erase_size=64\n")
        f.write("nandsim first_id_byte=0xec second_id_byte=0xf1 third_id_byte=0x00 "
                "fourth_id_byte=0x15 badblocks=%s\n" % NAND_BAD_BLOCKS)
    with open(os.path.join(root, "init"), "w") as f:
        f.write(INIT)
    os.chmod(os.path.join(root, "init"), 0o755)
    where = {"nor": board["nor"], "nand": "/dev/mtd%d" % board["nand_index"],
             "nand_index": board["nand_index"]}
    ran = write_cases(os.path.join(root, "cases.sh"), CASES, board, where)
    write_cases(os.path.join(root, "cases_after_cut.sh"),
                [(n, "b2m" if n.startswith("b2m") else "", c) for n, c in AFTER_CUT], board, where)
    img = os.path.join(work, "initrd.cpio")
    with open(img, "wb") as out:
        files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True,
                               check=True).stdout
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                       stdout=out, check=True)
    return img, ran


def parse(console):
    cases, cur = {}, None
    for line in console.splitlines():
        line = line.rstrip("\r")
        if line.startswith("@@CASE "):
            cur = {"rc": None, "out": [], "json": []}
            cases[line[7:]] = cur
            where = "out"
        elif cur is None:
            continue
        elif line.startswith("@@RC "):
            cur["rc"] = int(line[5:])
        elif line == "@@JSON":
            where = "json"
        elif line == "@@END":
            cur = None
        else:
            cur[where].append(line)
    return cases


cut_b2m = [""]  # the b2m logger's last sync before the cut


def boot(cmd, log, b2m_live=False):
    """Runs the VM to its end, its console into log; when the live case
    has printed CUT_AFTER_SYNCS syncs, cuts the power (SIGKILL to QEMU: the
    card keeps what QEMU had written to its image, nothing else). Returns
    the console and the synced line the cut came after ("" if none)."""
    cut_at = ""
    with open(log, "w") as f:
        vm = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        end = time.monotonic() + 900
        while vm.poll() is None:
            time.sleep(0.2)
            with open(log, errors="replace") as r:
                text = r.read()
            live = text.split("@@CASE mmc_cut", 1)
            tail = live[1] if len(live) > 1 else ""
            synced = re.findall(r"^synced \d+ s: .*records", tail, re.M)
            b2m = re.findall(r"^b2m: (synced \d+ s: .*records)", tail, re.M)
            # (a b2m logger that failed to start does not hold the cut: the
            # card's logger syncing ten times over is as long as it waits)
            enough = len(synced) >= CUT_AFTER_SYNCS and (
                not b2m_live or len(b2m) >= CUT_AFTER_SYNCS or len(synced) >= 10 * CUT_AFTER_SYNCS)
            if enough or time.monotonic() > end:
                if enough:
                    cut_at = synced[-1]
                    cut_b2m[0] = b2m[-1] if b2m else ""
                else:
                    print("the VM ran past 900 s: stopped")
                vm.kill()
                vm.wait()
                break
    with open(log, errors="replace") as f:
        return f.read(), cut_at


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("storscope")
    ap.add_argument("--kernel-deb")
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache",
                                                    "storscope", "vm"))
    ap.add_argument("--board", choices=sorted(BOARDS), default="pc",
                    help="the machine QEMU emulates (pc: this host's storscope; "
                         "vexpress-a9: an armhf one, e.g. build/linux-armhf/storscope)")
    ap.add_argument("-v", action="store_true", help="print the whole console")
    ap.add_argument("--kvm", action="store_true", help="pc: use KVM where /dev/kvm opens")
    ap.add_argument("--console", help="also keep the VM's console in this file, as it runs")
    ap.add_argument("--keep-json", metavar="DIR",
                    help="keep each case's results file as DIR/BOARD-CASE.json "
                         "(bench/board_vs_model.py reads them)")
    args = ap.parse_args()
    board = BOARDS[args.board]
    need = [(board["qemu"][0], "qemu-system-x86" if "x86" in board["qemu"][0] else
             "qemu-system-arm"), ("cpio", "cpio"), ("dpkg-deb", "dpkg"), ("readelf", "binutils")]
    if board["arch"] == "amd64":
        need += [("busybox", "busybox-static"), ("flash_erase", "mtd-utils")]
        if os.uname().machine != "x86_64":
            skip("the pc board runs this host's storscope on Debian's amd64 kernel: an x86_64 "
                 "host")
    for tool, pkg in need:
        if not shutil.which(tool):
            skip("%s is not installed (Debian package %s)" % (tool, pkg))
    if not os.path.exists(args.storscope):
        skip("%s does not exist (for vexpress-a9: scripts/cross.sh armhf builds it)"
             % args.storscope)
    deb = args.kernel_deb or fetch_deb(args, board["kernel"], board["arch"])
    work = tempfile.mkdtemp(prefix="storscope-vm-")
    kvm = False
    try:
        kroot = os.path.join(work, "kernel")
        subprocess.run(["dpkg-deb", "-x", deb, kroot], check=True)
        vmlinuz = glob.glob(kroot + "/boot/vmlinuz-*")[0]
        initrd, ran = build_initramfs(args, board, work, kroot)
        sd = os.path.join(work, "sd.img")  # QEMU's SD card takes a power of two
        with open(sd, "wb") as f:
            f.truncate(SD_BYTES)
        cmd = board["qemu"] + ["-nographic", "-no-reboot", "-kernel", vmlinuz, "-initrd", initrd,
                               "-append", "console=%s panic=-1 quiet loglevel=3"
                               % board["console"]]
        cmd += [x.format(sd=sd) for x in board["sd"]]
        if "b2m" in board:  # the disk under block2mtd: 16 MiB, erased (0xFF)
            b2m = os.path.join(work, "b2m.img")
            with open(b2m, "wb") as f:
                f.write(b"\xff" * (16 << 20))
            cmd += [x.format(b2m=b2m) for x in board["b2m"]]
        if "dtb" in board:
            cmd += ["-dtb", glob.glob(kroot + "/usr/lib/linux-image-*/" + board["dtb"])[0]]
        # KVM only when asked: on this machine's nested KVM the kernel hangs
        # after decompressing, where QEMU's emulation boots it in 1.5 s
        kvm = args.kvm and board["arch"] == "amd64" and os.access("/dev/kvm", os.R_OK | os.W_OK)
        if kvm:
            cmd = [x for x in cmd if x not in ("-cpu", "max")] + ["-enable-kvm", "-cpu", "host"]
        log = args.console or os.path.join(work, "console.log")
        console, cut_at = boot(cmd, log, "b2m" in board["has"])
        after = ""
        if "mmc_cut" in ran:  # booted again on the card the cut left
            append = cmd.index("-append") + 1
            cmd2 = list(cmd)
            cmd2[append] += " storscope_after_cut"
            after, _ = boot(cmd2, log + ".after-cut")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.v:
        print(console)
    booted = re.search(r"@@BOOTED (\S+)", console)
    if not booted or ("@@DONE" not in console and not cut_at):
        print(console[-3000:])
        print("FAILED: the VM did not boot and run its cases")
        return 1
    print("kernel %s (%s, %s)" % (booted.group(1), os.path.basename(deb),
                                  "KVM" if kvm else "emulated"))
    bad = re.findall(r"@@INSMOD (\S+) failed", console)
    cases = parse(console)
    if "mmc_cut" in ran:
        cases.update(parse(after))
        ran.append("mmc_after_cut")
        if "b2m" in board["has"]:
            ran.append("b2m_after_cut")
    fails = ["insmod %s failed" % m for m in bad]
    fails += ["the SD card never appeared (%s)" % m
              for m in re.findall(r"@@NO_CARD ([^\n]*)", console + after)]
    fails += ["block2mtd made no MTD of /dev/vda"] * ("@@NO_B2M" in console + after)

    passed = [0]

    def check(name, cond, what):
        """One expectation of a case; a case the board did not run is not
        checked, a case it ran but that printed nothing fails."""
        if name not in ran:
            return False
        if name not in cases:
            fails.append("%s: never ran (the VM stopped before it)" % name)
            return False
        if not cond:
            c = cases[name]
            fails.append("%s: %s (rc %s)\n    %s" % (name, what, c.get("rc"),
                                                     "\n    ".join(c.get("out", [])[-8:])))
            return False
        passed[0] += 1
        return True

    def doc(name):
        try:
            return json.loads("\n".join(cases[name]["json"]))
        except (KeyError, ValueError):
            return None

    def rc(name):
        return cases.get(name, {}).get("rc")

    out = {n: "\n".join(c["out"]) for n in ran for c in [cases.get(n, {"out": []})]}
    nand = "mtd%d" % board["nand_index"]
    if board["nor"]:
        check("proc_mtd", re.search(r'mtd0: 01000000 00010000 "mtdram test device"',
                                    out["proc_mtd"]), "mtdram is /dev/mtd0, 16 MiB in 64 KiB blocks")
    check("proc_mtd", re.search(r'%s: 08000000 00020000 "NAND simulator partition 0"' % nand,
                                out["proc_mtd"]), "nandsim is /dev/%s, 128 MiB, 128 KiB blocks" % nand)
    check("proc_mtd", "bad_blocks %d" % len(NAND_BAD_BLOCKS.split(",")) in out["proc_mtd"],
          "nandsim ships its bad blocks (sysfs bad_blocks)")
    check("nor_log_refused_read_only", rc("nor_log_refused_read_only") == 2 and
          "needs --allow-destructive" in out.get("nor_log_refused_read_only", ""),
          "a log is not formatted without --allow-destructive")
    for name, fs, mtd_type, erase, write in (
            ("nor_bare_read_only", "extentfs", "RAM", 65536, 1),
            ("nor_sensorlog", "sensorlog", "RAM", 65536, 1),
            ("nor_bare_write", "extentfs", "RAM", 65536, 1),
            ("nand_sensorlog", "sensorlog", "NAND flash", 131072, 2048),
            ("nand_sensorlog_again", "sensorlog", "NAND flash", 131072, 2048)):
        d = doc(name)
        if not check(name, rc(name) == 0 and d, "runs and writes its results"):
            continue
        env = d["environment"]
        check(name, (env["filesystem"], env["mtd_type"], env["mtd_erase_bytes"],
                     env["mtd_write_bytes"]) == (fs, mtd_type, erase, write),
              "environment %s" % {k: env.get(k) for k in ("filesystem", "mtd_type",
                                                           "mtd_erase_bytes", "mtd_write_bytes")})
        if "mtd_debug" in ran:  # mtd-utils' own reading of the chip agrees
            info = out["mtd_debug"].split("regions")[0 if name.startswith("nor") else 1]
            sizes = re.findall(r"mtd\.(erasesize|writesize) = (\d+)", info)
            check(name, dict(sizes) == {"erasesize": str(env["mtd_erase_bytes"]),
                                        "writesize": str(env["mtd_write_bytes"])},
                  "mtd_debug info says %s" % sizes)
        status = {t["id"]: t["status"] for t in d["tests"]}
        check(name, all(s in ("ok", "not_applicable") for s in status.values()) and
              "ok" in status.values(), "tests %s" % status)
        dev = [p["device"] for t in d["tests"] for p in t["points"] if "device" in p]
        if "read_only" in name:
            check(name, dev and all(x["programs"] == 0 and x["erases"] == 0 for x in dev),
                  "read-only: no program, no erase")
        else:
            check(name, sum(x["programs"] for x in dev) > 0, "the flash was programmed")
        if name in ("nor_bare_write", "nand_sensorlog_again"):
            check(name, sum(x["erases"] for x in dev) > 0, "old data on the chip was erased")
    check("nor_log_dump", rc("nor_log_dump") == 0 and "segments of" in out.get("nor_log_dump", ""),
          "the log on the chip reads back with storscope log dump")
    check("nand_bare_refused", rc("nand_bare_refused") == 2 and
          "raw NAND needs a store" in out["nand_bare_refused"], "bare extents refused on NAND")
    check("nor_jffs2_mounted", rc("nor_jffs2_mounted") == 2 and
          "is mounted" in out.get("nor_jffs2_mounted", ""), "a mounted JFFS2 partition is refused")
    check("nand_ubi_attached", rc("nand_ubi_attached") == 2 and
          "attached to UBI" in out.get("nand_ubi_attached", ""),
          "a partition attached to UBI is refused")
    check("not_an_mtd", rc("not_an_mtd") == 2 and
          "not an MTD character device" in out["not_an_mtd"], "a block device is not mtd:")
    ident = dict(l.split(" ", 1) for l in out["mmc_identity"].splitlines()
                 if l.startswith("sys_") and " " in l)
    d = doc("mmc_identity")
    got = (d or {}).get("probe", {}).get("identity", {})
    if check("mmc_identity", rc("mmc_identity") == 0 and got, "probe reads the card"):
        # storscope decodes the CID register the kernel exposes; the kernel
        # decodes it too (sysfs name, manfid, oemid, serial, date)
        oem = int(ident.get("sys_oemid", "0"), 16)
        want = {"type": ident.get("sys_type"), "name": ident.get("sys_name"),
                "manfid": int(ident.get("sys_manfid", "-1"), 16),
                "oemid": chr(oem >> 8) + chr(oem & 0xff),
                "serial": int(ident.get("sys_serial", "-1"), 16),
                "date": ident.get("sys_date")}
        mine = {k: got.get(k) for k in ("type", "name", "manfid", "oemid", "serial")}
        mine["date"] = "%02d/%d" % (got.get("month", 0), got.get("year", 0))
        check("mmc_identity", mine == want, "identity %s, the kernel's %s" % (mine, want))
        check("mmc_identity", got.get("csd_capacity_bytes") == SD_BYTES,
              "the CSD's capacity is the card's (%s)" % got.get("csd_capacity_bytes"))
    d = doc("mmc_sensorlog")
    if check("mmc_sensorlog", rc("mmc_sensorlog") == 0 and d, "runs on the card"):
        env = d["environment"]
        check("mmc_sensorlog", (env["raw_kind"], env["raw_direct_io"], env["filesystem"]) ==
              ("block device", True, "sensorlog"), "a block device, O_DIRECT, the log")
        check("mmc_sensorlog", all(t["status"] == "ok" for t in d["tests"]),
              "B0 and M1 with --verify: %s" % [(t["id"], t["status"]) for t in d["tests"]])
    d = doc("mmc_probe_preserve")
    check("mmc_probe_preserve", rc("mmc_probe_preserve") == 0 and d and
          d["probe"].get("destructive") is True and "same-bytes" in out["mmc_probe_preserve"],
          "the probe wrote, and put every byte of the card back")
    # the power cut: every record synced before it is on the card after it,
    # each stream gapless from the oldest kept to the newest (the demo's
    # rates: imu 1 kHz, ppg 100 Hz, env 1 Hz; timestamps in ns)
    check("mmc_cut", cut_at, "the logger synced %d times before the cut" % CUT_AFTER_SYNCS)
    if "b2m_after_cut" in ran:
        check("mmc_cut", cut_b2m[0], "the block2mtd logger synced %d times before the cut"
              % CUT_AFTER_SYNCS)
    for case, synced, what in (("mmc_after_cut", cut_at, "the card"),
                               ("b2m_after_cut", cut_b2m[0], "the block2mtd flash")):
        if not synced or not check(case, rc(case) == 0,
                                   "the log mounts after the cut and reads to its end"):
            continue
        want = dict(zip(("imu", "ppg", "env"), map(int, re.findall(
            r"imu (\d+), ppg (\d+), env (\d+)", synced)[0])))
        kept = {m[0]: tuple(int(x) for x in m[1:]) for m in
                re.findall(r"stream (\w+) (\d+) (\d+) (\d+) (\d+)", out.get(case, ""))}
        for name, period in (("imu", 10 ** 6), ("ppg", 10 ** 7), ("env", 10 ** 9)):
            n, first, last, gaps = kept.get(name, (0, -1, -1, -1))
            # (a log that wrapped keeps the newest: first > 0 then)
            check(case, n and last >= (want[name] - 1) * period and gaps == 0 and
                  last == first + (n - 1) * period,
                  "%s: %d records synced before the cut, %d kept from %d to %d ns with %d gaps"
                  % (name, want[name], n, first, last, gaps))
        print("power cut after \"%s\": %s kept %s" % (synced, what,
                                                      {k: v[0] for k, v in kept.items()}))
    # the demo's 5 s on the flash: imu 1 kHz, ppg 100 Hz, env 1 Hz, every
    # record back, gapless (timestamps in ns)
    for case in ("nor_log_demo",):
        if check(case, rc(case) == 0, "log demo and log dump on the MTD device"):
            kept = {m[0]: tuple(int(x) for x in m[1:]) for m in
                    re.findall(r"stream (\w+) (\d+) (\d+) (\d+) (\d+)", out.get(case, ""))}
            for name, n_want, period in (("imu", 5000, 10 ** 6), ("ppg", 500, 10 ** 7),
                                         ("env", 5, 10 ** 9)):
                n, first, last, gaps = kept.get(name, (0, -1, -1, -1))
                check(case, n == n_want and first == 0 and gaps == 0 and
                      last == (n_want - 1) * period,
                      "%s: %d of %d records back, from %d to %d ns with %d gaps"
                      % (name, n, n_want, first, last, gaps))
    for n in ran:
        print("%-28s rc %s" % (n, rc(n)))
    if args.keep_json:
        os.makedirs(args.keep_json, exist_ok=True)
        for n in ran:
            d = doc(n)
            if d:
                with open(os.path.join(args.keep_json, "%s-%s.json" % (args.board, n)), "w") as f:
                    json.dump(d, f)
    d = doc("nand_sensorlog")
    if d:
        for t in d["tests"]:
            if t["status"] == "ok" and t["points"]:
                p = t["points"][-1]
                print("nand_sensorlog %s %s: %.0f B/s (%s)" % (t["id"], p["name"], p["runs"]["mean"],
                      p["params"]))
    left = [n for n, needs, _ in CASES if n not in ran]
    if left:
        print("not run on %s: %s (%s)" % (args.board, ", ".join(left), board["lacks"]))
    if fails:
        print("FAILED:\n" + "\n".join(fails))
    print("%d passed, %d failed" % (passed[0], len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
