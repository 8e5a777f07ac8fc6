# A diamond: 0 reaches 3 through 1 or through 2. Two TCP flows 0 -> 3 with flow ids 1 and 2;
# node 0 (and node 3 for the ACKs) has per-flow routes, flow 1 through node 1 and flow 2
# through node 2, and a per-destination route through node 1 that only other packets
# use. Both relays must forward (a per-destination table alone would leave node 2 idle),
# and node 2's per-flow-only table must not carry anything but flow 2.
if {[catch {Agent/StaticRoute info class}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports static-routes): no class Agent/StaticRoute"; exit 1}
set out [expr {$argc > 0 ? [lindex $argv 0] : "/tmp/static-routes-flows"}]
set ns_ [new Simulator]
set tracefd [open $out.tr w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid 400 300
create-god 4
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting StaticRoute -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
set pos {{10 110} {180 10} {180 210} {350 110}}
for {set i 0} {$i < 4} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [lindex $pos $i 0]
    $node_($i) set Y_ [lindex $pos $i 1]
    $node_($i) set Z_ 0.0
    set r($i) [$node_($i) set ragent_]
}
$r(0) add-route 3 1
$r(0) add-flow-route 1 3 1
$r(0) add-flow-route 2 3 2
$r(1) add-route 3 3
$r(1) add-route 0 0
$r(2) add-flow-route 2 3 3
$r(2) add-flow-route 2 0 0
$r(3) add-route 0 1
$r(3) add-flow-route 2 0 2
set fail 0
proc check {what got want} {
    global fail
    if {$got != $want} { puts "FAIL $what: $got (want $want)"; set fail 1 } else { puts "$what: $got" }
}
check "node 0: route to 3 (no flow)" [$r(0) route 3] 1
check "node 0: route to 3 for flow 2" [$r(0) route 2 3] 2
check "node 0: route to 3 for flow 7 (per destination)" [$r(0) route 7 3] 1
check "node 2: route to 3 (no flow)" [$r(2) route 3] -1
check "node 0: routes" [$r(0) routes] {3 1}
check "node 0: flow routes" [$r(0) flow-routes] {1 3 1 2 3 2}
check "node 0: nroutes" [$r(0) nroutes] 3
for {set f 1} {$f <= 2} {incr f} {
    set tcp($f) [new Agent/TCP/Newreno]
    $tcp($f) set window_ 4
    $tcp($f) set fid_ $f
    set sink($f) [new Agent/TCPSink]
    $ns_ attach-agent $node_(0) $tcp($f)
    $ns_ attach-agent $node_(3) $sink($f)
    $ns_ connect $tcp($f) $sink($f)
    set ftp($f) [new Application/FTP]
    $ftp($f) attach-agent $tcp($f)
    $ns_ at [expr {1.0 + 0.1 * $f}] "$ftp($f) start"
}
proc finish {} {
    global ns_ tracefd sink r
    $ns_ flush-trace
    close $tracefd
    check "flow 1 delivered" [expr {[$sink(1) set bytes_] > 50000}] 1
    check "flow 2 delivered" [expr {[$sink(2) set bytes_] > 50000}] 1
    check "node 1 forwarded" [expr {[$r(1) set nforwarded_] > 0}] 1
    check "node 2 forwarded" [expr {[$r(2) set nforwarded_] > 0}] 1
    check "no-route drops at 1, 2" "[$r(1) set ndrop_noroute_] [$r(2) set ndrop_noroute_]" "0 0"
    global fail
    if {$fail} { puts "FAILED"; exit 1 }
    puts "ok flow-routes: per-flow routes looked up before per-destination ones"
    exit 0
}
$ns_ at 10.0 "finish"
$ns_ run
