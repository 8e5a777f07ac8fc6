# A 3-hop chain 0-1-2-3 (200 m apart) with static routes and one TCP flow 0 -> 3, then a
# CBR flow 0 -> 2 for which node 1 has no route: every one of its packets is dropped at node 1
# (NRTE) and none arrives; the TCP flow's data and ACKs are forwarded at nodes 1 and 2.
if {[catch {Agent/StaticRoute info class}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports static-routes): no class Agent/StaticRoute"; exit 1}
set out [expr {$argc > 0 ? [lindex $argv 0] : "/tmp/static-routes-chain"}]
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
# routes along the chain, both ways; node 1 has none to 2 (the CBR flow's destination)
$r(0) add-route 3 1
$r(0) add-route 2 1
$r(1) add-route 3 2
$r(2) add-route 3 3
$r(3) add-route 0 2
$r(2) add-route 0 1
$r(1) add-route 0 0
set fail 0
proc check {what got want} {
    global fail
    if {$got != $want} { puts "FAIL $what: $got (want $want)"; set fail 1 } else { puts "$what: $got" }
}
check "route 0->3 at 1" [$r(1) route 3] 2
check "route to 2 at 1 (none)" [$r(1) route 2] -1
check "agent class" [$r(1) info class] Agent/StaticRoute

set tcp [new Agent/TCP/Newreno]
$tcp set window_ 8
$tcp set packetSize_ 1000
set sink [new Agent/TCPSink]
$ns_ attach-agent $node_(0) $tcp
$ns_ attach-agent $node_(3) $sink
$ns_ connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns_ at 1.0 "$ftp start"

set udp [new Agent/UDP]
set lm [new Agent/LossMonitor]
$ns_ attach-agent $node_(0) $udp
$ns_ attach-agent $node_(2) $lm
$ns_ connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set interval_ 0.5
$ns_ at 2.0 "$cbr start"
$ns_ at 11.9 "$cbr stop"

proc finish {} {
    global ns_ tracefd sink lm r fail
    $ns_ flush-trace
    close $tracefd
    check "udp packets received at 2" [$lm set npkts_] 0
    check "udp packets dropped at 1 for no route" [$r(1) set ndrop_noroute_] 20
    check "tcp bytes delivered > 100000" [expr {[$sink set bytes_] > 100000}] 1
    check "node 1 forwarded (tcp data + acks) > 200" [expr {[$r(1) set nforwarded_] > 200}] 1
    check "node 3 originated = ACKs sent" [expr {[$r(3) set noriginated_] > 100}] 1
    check "ttl / loop drops" "[$r(1) set ndrop_ttl_] [$r(1) set ndrop_loop_]" "0 0"
    if {$fail} { puts "FAILED"; exit 1 }
    puts "ok chain: static routes forward, a missing route drops (NRTE)"
    exit 0
}
$ns_ at 12.0 "finish"
$ns_ run
