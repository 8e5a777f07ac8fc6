#!/bin/sh
# Runs every test of the tcp-gap port with the patched ns ($1, default ../../../../ns2build/...).
NS=${1:-/work/ns2build/tcp-gap/src/ns}
cd "$(dirname "$0")"
fail=0
for t in "test-chain-down.tcl 4" "test-chain-down.tcl 2" "test-pacing-off.tcl" "test-gc.tcl 1" "test-gc.tcl 0" \
         "test-uplink.tcl 1" "test-uplink.tcl 0" "test-local-retx.tcl"; do
	last=$(nice "$NS" $t 2>&1 | grep "^ok\|^FAIL" | tail -1)
	echo "$t: $last"
	case "$last" in ok*) ;; *) fail=1 ;; esac
done
./test-stock.sh || fail=1
exit $fail
