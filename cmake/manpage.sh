#!/bin/sh
# Writes storscope.1 from the built binary's own --help texts (the top
# level, then every command's), so the man page lists what the program
# accepts and cannot drift from it.   manpage.sh BIN OUT VERSION
set -eu
bin=$1 out=$2 version=$3
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"; }
{
    echo ".TH STORSCOPE 1 \"\" \"storscope $version\" \"User Commands\""
    echo ".SH NAME"
    printf '%s\n' 'storscope \- storage characterization for data-logger engineers'
    echo ".SH SYNOPSIS"
    echo ".B storscope"
    echo ".I command"
    printf '%s\n' '[\fIoptions\fR]'
    echo ".SH DESCRIPTION"
    echo ".nf"
    "$bin" --help | esc
    echo ".fi"
    for cmd in run list report compare log probe plan fit db; do
        echo ".SH \"$(echo "$cmd" | tr a-z A-Z)\""
        echo ".nf"
        "$bin" "$cmd" --help | esc
        echo ".fi"
    done
    echo ".SH FILES"
    echo "Results are JSON (schema storscope-result/1); see"
    echo ".I /usr/share/doc/storscope"
    echo "and the project's docs/json-schema.md."
} >"$out"
