#!/bin/sh
# Regenerates results.txt with the installed ns-2.35 (Debian package ns2).
cd "$(dirname "$0")"
for r in "2Mb 1Mb" "11Mb 1Mb" "54Mb 1Mb"; do ns single-hop.tcl $r | grep per_s; done > results.txt
