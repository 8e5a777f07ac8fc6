# Routing loops on a 4-node chain 0-1-2-3. Packets 0 -> 3 (CBR, flow id 1) meet a loop
# between nodes 1 and 2 and are forwarded until their TTL (32, set by node 0) runs out:
# each is dropped once with reason TTL. Packets 0 -> 2 (flow id 2) are sent back to node 0
# by node 1 and dropped there as a loop (LOOP). No packet arrives at either sink.
if {[catch {Agent/StaticRoute info class}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports static-routes): no class Agent/StaticRoute"; exit 1}
set out [expr {$argc > 0 ? [lindex $argv 0] : "/tmp/static-routes-loops"}]
set ns_ [new Simulator]
set tracefd [open $out.tr w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid 1000 100
create-god 4
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting StaticRoute -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
for {set i 0} {$i < 4} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [expr {10.0 + 200.0 * $i}]
    $node_($i) set Y_ 10.0
    $node_($i) set Z_ 0.0
    set r($i) [$node_($i) set ragent_]
}
$r(0) add-route 3 1
$r(1) add-route 3 2
$r(2) add-route 3 1   ;# the loop 1 <-> 2
$r(0) add-route 2 1
$r(1) add-route 2 0   ;# back to the sender
set fail 0
proc check {what got want} {
    global fail
    if {$got != $want} { puts "FAIL $what: $got (want $want)"; set fail 1 } else { puts "$what: $got" }
}
proc cbr-flow {k from to fid start} {
    global ns_ node_ lm cbr
    set udp [new Agent/UDP]
    $udp set fid_ $fid
    set lm($k) [new Agent/LossMonitor]
    $ns_ attach-agent $node_($from) $udp
    $ns_ attach-agent $node_($to) $lm($k)
    $ns_ connect $udp $lm($k)
    set cbr($k) [new Application/Traffic/CBR]
    $cbr($k) attach-agent $udp
    $cbr($k) set packetSize_ 200
    $cbr($k) set interval_ 1.0
    $ns_ at $start "$cbr($k) start"
}
cbr-flow a 0 3 1 1.0
cbr-flow b 0 2 2 1.5
$ns_ at 10.9 "$cbr(a) stop; $cbr(b) stop"
proc finish {} {
    global ns_ tracefd lm r out
    $ns_ flush-trace
    close $tracefd
    set fh [open $out.tr r]
    set tr [read $fh]
    close $fh
    check "arrived at 3 and at 2" "[$lm(a) set npkts_] [$lm(b) set npkts_]" "0 0"
    check "TTL drops (nodes 1 + 2) = packets 0 -> 3" [expr {[$r(1) set ndrop_ttl_] + [$r(2) set ndrop_ttl_]}] 10
    check "RTR TTL lines in the trace" [regexp -all {RTR +TTL } $tr] 10
    check "LOOP drops at node 0 = packets 0 -> 2" [$r(0) set ndrop_loop_] 10
    check "RTR LOOP lines in the trace" [regexp -all {RTR +LOOP } $tr] 10
    # each packet 0 -> 3 is forwarded 31 times (TTL 32 down to 1) before the 32nd hop drops it
    check "forwarded by 1 and 2" [expr {[$r(1) set nforwarded_] + [$r(2) set nforwarded_]}] [expr {10 * 31 + 10}]
    global fail
    if {$fail} { puts "FAILED"; exit 1 }
    puts "ok loops: TTL runs out in a loop, a sender's own packet coming back is dropped"
    exit 0
}
$ns_ at 12.0 "finish"
$ns_ run
