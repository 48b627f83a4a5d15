"""What kernel_vm.py builds its guest from: Debian packages fetched for an
architecture (cached, or `apt-get download` from the mirror apt knows), a
kernel module's dependencies, and a program with the shared libraries it
needs, copied into the initramfs tree. A missing piece skips the test
(exit 77) with the reason."""
import glob
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(SKIP)


def fetch_deb(args, pkg, arch):
    """A Debian package of the given architecture (a metapackage such as
    linux-image-amd64 resolved to what it depends on): cached, or fetched
    with `apt-get download` from the mirror apt knows."""
    os.makedirs(args.cache, exist_ok=True)
    base = pkg.split(":")[0]
    kernel = base.startswith("linux-image-")  # linux-image-FLAVOUR names linux-image-VER-FLAVOUR
    pattern = os.path.join(args.cache, ("linux-image-*-%s_*_%s.deb" % (base[12:], arch)) if kernel
                           else "%s_*_%s.deb" % (base, arch))
    have = sorted(glob.glob(pattern))
    if have:
        return have[-1]
    name = "%s:%s" % (base, arch)
    dep = subprocess.run(["apt-cache", "depends", name], capture_output=True, text=True)
    real = re.findall(r"Depends: (linux-image-[0-9][^\s:]*)", dep.stdout) if kernel else [base]
    if not real:
        skip("no %s package: `apt-cache depends %s` names none (is the %s architecture "
             "added? dpkg --add-architecture %s && apt-get update) %s"
             % (name, name, arch, arch, dep.stderr.strip()))
    r = subprocess.run(["apt-get", "download", "%s:%s" % (real[0], arch)], cwd=args.cache,
                       capture_output=True, text=True)
    have = sorted(glob.glob(pattern))
    if r.returncode or not have:
        skip("cannot download %s:%s from Debian's mirror: %s"
             % (real[0], arch, r.stderr.strip()[-300:]))
    return have[-1]


def module_deps(mods, name, out):
    """name and what it depends on (from its .modinfo), dependencies first."""
    with open(mods[name], "rb") as f:
        m = re.search(rb"depends=([^\0]*)\0", f.read())
    for d in (m.group(1).decode().split(",") if m else []):
        if d:
            module_deps(mods, d.replace("-", "_"), out)
    if name not in out:
        out.append(name)


MULTIARCH = {"amd64": "x86_64-linux-gnu", "armhf": "arm-linux-gnueabihf"}


def libraries(path, arch):
    """The shared libraries a program needs, with their loader: ldd for the
    host's own programs; for another architecture, its ELF NEEDED entries
    looked up in Debian's multiarch directories (ldd cannot run it)."""
    if arch == "amd64":
        ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        return re.findall(r"(/\S+) \(0x", ldd)
    triplet = MULTIARCH[arch]
    dirs = ["/lib/" + triplet, "/usr/lib/" + triplet, "/usr/%s/lib" % triplet]
    found, todo = [], [path]
    while todo:
        elf = subprocess.run(["readelf", "-d", "-l", todo.pop()], capture_output=True,
                             text=True).stdout
        interp = re.findall(r"program interpreter: (\S+?)\]", elf)
        for lib in re.findall(r"\(NEEDED\).*\[(.+?)\]", elf) + interp:
            hit = lib if lib.startswith("/") else next(
                (os.path.join(d, lib) for d in dirs if os.path.exists(os.path.join(d, lib))),
                None)
            if not hit or not os.path.exists(hit):
                skip("%s needs %s for %s: not installed here" % (path, lib, arch))
            if hit not in found:
                found.append(hit)
                todo.append(os.path.realpath(hit))
    return found


def copy_program(path, root, arch="amd64", dest=None):
    """A dynamically linked program (at dest, or its own path) and the
    libraries it needs, at their paths."""
    for f in [path] + libraries(path, arch):
        dst = root + (dest if f == path and dest else f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.realpath(f), dst)
