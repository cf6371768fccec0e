#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# extract-document-program.sh DOCUMENT OUT.c - write the C program that a
# source document prints under a line reading exactly "u-dma-buf-file-test.c"
# (seed 000, the article that asked "why is file access faster than mmap?")
# to OUT.c, so that it can be built for a guest and run beside our own
# udmabuf-cpu-access program.  The program is not part of this repository;
# it is taken from the document the user names, at build time.
#
# The code starts after that title line and ends with the last line "}"
# before the document's prose resumes (the first line that starts with a
# non-ASCII character).  Exit status 1 when no such program is found.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 DOCUMENT OUT.c" >&2
	exit 2
fi
doc=$1
out=$2
tmp="$out.tmp"

LC_ALL=C awk '
	!on && $0 == "u-dma-buf-file-test.c" { on = 1; next }
	on && /^[\200-\377]/ { exit }
	on { line[++n] = $0; if ($0 == "}") last = n }
	END { for (i = 1; i <= last; i++) print line[i] }
' "$doc" > "$tmp"
if ! grep -q '^int main' "$tmp"; then
	rm -f "$tmp"
	echo "$0: no u-dma-buf-file-test.c program in $doc" >&2
	exit 1
fi
mv "$tmp" "$out"
