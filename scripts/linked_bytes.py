#!/usr/bin/env python3
"""Bytes of code and constants a store adds to a program, from GNU ld maps.

    linked_bytes.py LOGGER_MAP EMPTY_MAP LOGGER_OBJECT [--by-object]

Counts the .text and .rodata input sections kept in LOGGER_MAP (a logger
that calls the store, linked with --gc-sections) that the empty program of
EMPTY_MAP (the same start-up files and libraries, a main that does nothing)
does not have, leaving out the logger's own main (LOGGER_OBJECT, a file
name) and memcpy/memset, which every firmware links anyway (issue 40's
rule). What is left is the store's code and what it pulls in from libgcc
and newlib: 64-bit division, strcmp, memmove... A firmware pays for those
unless it uses them elsewhere, so they count.
"""
import re
import sys

SECTION = re.compile(r"^ \.((?:text|rodata)\S*)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", re.M)
FREE = ("memcpy", "memset")


def sections(path):
    text = open(path).read()
    text = text[text.index("Linker script and memory map"):]
    for name, size, obj in SECTION.findall(text):
        if int(size, 16):
            # an archive member keeps its archive's name, not its path
            yield name, int(size, 16), obj.rsplit("/", 1)[-1]


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    logger_map, empty_map, logger_obj = argv[1:4]
    try:
        empty = {(name, obj) for name, _, obj in sections(empty_map)}
        logger = list(sections(logger_map))
    except OSError as e:
        print(f"linked_bytes.py: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    except ValueError:  # (no "Linker script and memory map" in it)
        print("linked_bytes.py: not a GNU ld map (-Wl,-Map=FILE)", file=sys.stderr)
        return 2
    by_object = {}
    for name, size, obj in logger:
        if obj == logger_obj or (name, obj) in empty or any(f in obj for f in FREE):
            continue
        by_object[obj] = by_object.get(obj, 0) + size
    if len(argv) == 5:
        for obj, size in sorted(by_object.items(), key=lambda kv: -kv[1]):
            print(f"{size:6d} {obj}")
    print(sum(by_object.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
