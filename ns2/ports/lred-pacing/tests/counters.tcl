# lred-pacing: hand-checkable cases, each a run of chain.tcl with this same binary.
# Prints one line per check and, when all hold, a last line starting with "ok".
if {[catch {Mac/802_11 set lred_min_th_}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports lred-pacing): Mac/802_11 has no lred_min_th_"; exit 1}
set ns [info nameofexecutable]
set dir [file dirname [info script]]
set fail 0
proc run {args} {
    global ns dir
    set out [eval exec nice [list $ns] [list [file join $dir chain.tcl]] $args 2>@1]
    set res(nodes) {}
    foreach line [split $out "\n"] {
        if {[lindex $line 0] == "node"} {
            set i [lindex $line 1]
            lappend res(nodes) $i
            foreach {k v} [lrange $line 2 end] { set res($i,$k) $v }
        } elseif {[lindex $line 0] == "goodput_kbps" || [lindex $line 0] == "cbr_received"} {
            set res([lindex $line 0]) [lindex $line 1]
        }
    }
    return [array get res]
}
proc sum {resv key} {
    array set r $resv
    set s 0
    foreach i $r(nodes) { set s [expr {$s + $r($i,$key)}] }
    return $s
}
proc check {what cond} {
    global fail
    if {[uplevel 1 [list expr $cond]]} { puts "pass: $what" } else { puts "FAIL: $what"; set fail 1 }
}

# 1. everything off: frames and retries are measured, nothing is marked, dropped or paced
set r [run hops=4 dur=10]
check "off: frames > 0" {[sum $r frames] > 0}
check "off: no LRED check/mark/drop" {[sum $r checked] == 0 && [sum $r marks] == 0 && [sum $r drops] == 0}
check "off: no paced wait" {[sum $r paced] == 0}
array set a $r
set ok 1
foreach i $a(nodes) {
    if {$a($i,retries) == 0 && ($a($i,avg_retry) != 0 || $a($i,avg_retry_tavg) != 0)} { set ok 0 }
    if {$a($i,frames) > 0 && $a($i,retries) > 7 * $a($i,frames)} { set ok 0 }
}
check "off: avg_retry 0 where no retry, retries <= 7 per frame" {$ok}

# 2. pacing always on, a fixed 1500-byte DATA frame: every wait is its 2 Mb/s airtime
#    (24 B PLCP at 1 Mb/s = 192 us; 1500 + 58 - 24 = 1534 B at 2 Mb/s = 6136 us) = 6.328 ms
set r [run hops=4 dur=10 pace_=1 pace_trigger_=0 pace_len_=0 pace_bytes_=1500]
array unset a; array set a $r
check "pace TX_Time(1500 B): paced > 0" {[sum $r paced] > 0}
set ok 1
foreach i $a(nodes) { if {$a($i,paced) > 0 && abs($a($i,pace_mean) - 0.006328) > 1e-9} { set ok 0; puts "  node $i pace_mean $a($i,pace_mean)" } }
check "pace TX_Time(1500 B): every wait 6.328 ms" {$ok}
#    + overhead: RTS 44 B, CTS 38 B, ACK 38 B at 1 Mb/s (352 + 304 + 304 us) + 3 SIFS (30 us) = 7.318 ms
set r [run hops=4 dur=10 pace_=1 pace_trigger_=0 pace_len_=1 pace_bytes_=1500]
array unset a; array set a $r
set ok 1
foreach i $a(nodes) { if {$a($i,paced) > 0 && abs($a($i,pace_mean) - 0.007318) > 1e-9} { set ok 0; puts "  node $i pace_mean $a($i,pace_mean)" } }
check "pace TX_Time + overhead: every wait 7.318 ms" {$ok && [sum $r paced] > 0}
#    without RTS/CTS (RTSThreshold_ 3000): the exchange is DATA + SIFS + ACK: 6.328 + 0.010 + 0.304 = 6.642 ms
set r [run hops=4 dur=10 pace_=1 pace_trigger_=0 pace_len_=1 pace_bytes_=1500 RTSThreshold_=3000]
array unset a; array set a $r
set ok 1
foreach i $a(nodes) { if {$a($i,paced) > 0 && abs($a($i,pace_mean) - 0.006642) > 1e-9} { set ok 0; puts "  node $i pace_mean $a($i,pace_mean)" } }
check "pace TX_Time + overhead without RTS: every wait 6.642 ms" {$ok && [sum $r paced] > 0}
#    in whole slots: 6.328 ms -> 317 slots of 20 us = 6.34 ms
set r [run hops=4 dur=10 pace_=1 pace_trigger_=0 pace_len_=0 pace_bytes_=1500 pace_wait_=1]
array unset a; array set a $r
set ok 1
foreach i $a(nodes) { if {$a($i,paced) > 0 && abs($a($i,pace_mean) - 0.00634) > 1e-9} { set ok 0; puts "  node $i pace_mean $a($i,pace_mean)" } }
check "pace in slots: every wait 6.34 ms" {$ok && [sum $r paced] > 0}

# 3. the trigger: with min_th 100 every node is below it: TR reading paces, INFOCOM's does not
set r1 [run hops=4 dur=10 pace_=1 pace_trigger_=1 lred_min_th_=100 lred_max_th_=200]
set r2 [run hops=4 dur=10 pace_=1 pace_trigger_=2 lred_min_th_=100 lred_max_th_=200]
check "trigger 1 (avg < min_th): paced > 0" {[sum $r1 paced] > 0}
check "trigger 2 (avg >= min_th): paced == 0" {[sum $r2 paced] == 0}
#    with min_th 0 the INFOCOM reading paces every acknowledged frame
set r3 [run hops=4 dur=10 pace_=1 pace_trigger_=2 lred_min_th_=0 lred_max_th_=1]
check "trigger 2, min_th 0: paced > 0" {[sum $r3 paced] > 0}
#    pacing (the default: the acknowledged frame + overhead) lowers the frames sent in 10 s
check "pacing always on sends fewer frames than no pacing" {[sum $r1 frames] < [sum [run hops=4 dur=10] frames]}

# 4. LRED's probability on a controlled input: one hop, CBR/UDP (not ECN-capable), min_th = max_th = 0
#    so the probability is max_P = 0.25 from the first packet on; 2000 packets
set r [run hops=1 dur=20 traffic=cbr cbr_int=0.01 lred_=1 lred_min_th_=0 lred_max_th_=0 lred_max_p_=0.25]
array unset a; array set a $r
set frac [expr {double($a(0,drops)) / $a(0,checked)}]
puts "  node 0: checked $a(0,checked) drops $a(0,drops) ($frac), received $a(cbr_received)"
check "LRED drop fraction 0.25 +- 0.04 (4 sigma)" {$a(0,checked) >= 1900 && abs($frac - 0.25) < 0.04}
check "LRED: no mark on non-ECN packets" {$a(0,marks) == 0}
check "LRED: every packet not dropped arrives (but the last in flight)" {$a(cbr_received) <= $a(0,checked) - $a(0,drops) && $a(cbr_received) >= $a(0,checked) - $a(0,drops) - 2}
set r [run hops=1 dur=20 traffic=cbr lred_=1 lred_min_th_=0 lred_max_th_=0 lred_max_p_=0.25 lred_drop_=0]
array unset a; array set a $r
check "LRED with lred_drop_ 0: nothing dropped or marked" {$a(0,drops) == 0 && $a(0,marks) == 0 && $a(0,checked) > 0}
#    below min_th nothing happens (min_th 100)
set r [run hops=1 dur=5 traffic=cbr lred_=1 lred_min_th_=100 lred_max_th_=200 lred_max_p_=1]
array unset a; array set a $r
check "LRED below min_th: checked, nothing dropped" {$a(0,checked) > 0 && $a(0,drops) == 0}

# 5. ECN: TCP with ecn_ 1, every packet chosen (max_P 1), non-ECT (TCP ACKs) left alone: data marked
set r [run hops=3 dur=10 ecn=1 lred_=1 lred_min_th_=0 lred_max_th_=0 lred_max_p_=1 lred_drop_=0]
array unset a; array set a $r
check "ECN: data segments marked, nothing dropped" {$a(0,marks) > 0 && [sum $r drops] == 0}
check "ECN: the receiver's ACKs are not marked" {$a(3,marks) == 0 && $a(3,checked) > 0}
check "ECN: the flow still delivers" {$a(goodput_kbps) > 0}

#    lred_drop_ 2: every chosen packet is dropped, ECN-capable or not
set r [run hops=3 dur=10 ecn=1 lred_=1 lred_min_th_=0 lred_max_th_=0 lred_max_p_=0.05 lred_drop_=2]
array unset a; array set a $r
check "lred_drop_ 2: no mark, drops > 0" {[sum $r marks] == 0 && [sum $r drops] > 0}

# 6. the real-time hold (pace_wait_ 2) runs and paces
set r [run hops=4 dur=10 pace_=1 pace_trigger_=0 pace_wait_=2]
check "hold: paced > 0 and goodput > 0" {[sum $r paced] > 0 && [dict get $r goodput_kbps] > 0}

# 7. lred_count_ 1 (RTS failures only) never counts more than lred_count_ 0 on the same run:
#    with LRED and pacing off the runs are identical, so the retries can be compared node by node
set r0 [run hops=4 dur=10 lred_count_=0]
set r1 [run hops=4 dur=10 lred_count_=1]
array unset a; array set a $r0; array set b $r1
set ok 1
foreach i $a(nodes) { if {$b($i,retries) > $a($i,retries) || $b($i,frames) != $a($i,frames)} { set ok 0 } }
check "lred_count_ 1 <= lred_count_ 0, same frames" {$ok}

# 8. switched on but never acting changes nothing: LRED below an unreachable min_th (no random
#    draw) and pacing whose trigger is never met give the very run of everything off
set r0 [run hops=4 dur=10]
set r1 [run hops=4 dur=10 lred_=1 lred_min_th_=100 lred_max_th_=200 pace_=1 pace_trigger_=2]
array unset a; array unset b; array set a $r0; array set b $r1
set ok [expr {$a(goodput_kbps) == $b(goodput_kbps)}]
foreach i $a(nodes) { if {$a($i,frames) != $b($i,frames) || $a($i,retries) != $b($i,retries)} { set ok 0 } }
check "on but never acting: the same run as off" {$ok && [sum $r1 checked] > 0 && [sum $r1 paced] == 0}

if {$fail} { puts "FAILED"; exit 1 }
puts "ok lred-pacing counters"
exit 0
