#!/bin/sh
# The scenario library refuses stock ns-2.35 with one line naming the missing class.
out=$(/usr/bin/ns "$(dirname "$0")/test-chain-down.tcl" 2>&1 >/dev/null)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s\n' "$out" | grep -q "no class Connector/TcpGap" && echo "ok stock ns refuses: $out" || { echo "FAIL stock: rc=$rc $out"; exit 1; }
