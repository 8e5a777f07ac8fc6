# lred-pacing: an h-hop chain (nodes 200 m apart, 2 Mb/s, RTS/CTS) carrying one TCP NewReno flow
# (or one CBR/UDP flow) from node 0 to node h; prints the goodput and every node's counters.
# Usage: ns chain.tcl [key=value ...]   keys: hops maxwin dur ecn traffic(tcp|cbr) cbr_int seed,
#        and any Mac/802_11 variable (the port's lred_ ... pace_wait_, or RTSThreshold_ etc.).
# Routing: Agent/StaticRoute when the binary has the static-routes port, else DSDV (warm-up 10 s).
if {[catch {Mac/802_11 set lred_min_th_}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports lred-pacing): Mac/802_11 has no lred_min_th_"; exit 1}
array set opt {hops 4 maxwin 32 dur 20 ecn 0 traffic tcp cbr_int 0.01 seed 1}
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
foreach a $argv {
    set kv [split $a =]
    set k [lindex $kv 0]; set v [lindex $kv 1]
    if {[string match "*_" $k]} { Mac/802_11 set $k $v } else { set opt($k) $v }
}
ns-random $opt(seed)
set h $opt(hops)
set static [expr {![catch {Agent/StaticRoute info class}]}]
set t0 [expr {$static ? 1.0 : 10.0}]
set ns_ [new Simulator]
$ns_ trace-all [open /dev/null w]
set topo [new Topography]
$topo load_flatgrid [expr {200 * $h + 100}] 100
create-god [expr {$h + 1}]
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting [expr {$static ? "StaticRoute" : "DSDV"}] -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
for {set i 0} {$i <= $h} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [expr {10.0 + 200.0 * $i}]
    $node_($i) set Y_ 10.0
    $node_($i) set Z_ 0.0
}
if {$static} {
    for {set i 0} {$i <= $h} {incr i} {
        set r [$node_($i) set ragent_]
        if {$i < $h} { $r add-route $h [expr {$i + 1}] }
        if {$i > 0} { $r add-route 0 [expr {$i - 1}] }
    }
}
if {$opt(traffic) == "tcp"} {
    set src [new Agent/TCP/Newreno]
    $src set packetSize_ 1460
    $src set window_ $opt(maxwin)
    $src set ecn_ $opt(ecn)
    set sink [new Agent/TCPSink]
    $ns_ attach-agent $node_(0) $src
    $ns_ attach-agent $node_($h) $sink
    $ns_ connect $src $sink
    set app [new Application/FTP]
    $app attach-agent $src
    $ns_ at $t0 "$app start"
} else {
    set src [new Agent/UDP]
    set sink [new Agent/LossMonitor]
    $ns_ attach-agent $node_(0) $src
    $ns_ attach-agent $node_($h) $sink
    $ns_ connect $src $sink
    set app [new Application/Traffic/CBR]
    $app set packetSize_ 512
    $app set interval_ $opt(cbr_int)
    $app attach-agent $src
    $ns_ at $t0 "$app start"
}
proc finish {} {
    global ns_ node_ h opt sink t0
    if {$opt(traffic) == "tcp"} {
        set bytes [$sink set bytes_]
    } else {
        set bytes [$sink set bytes_]
        puts "cbr_received [$sink set npkts_]"
    }
    puts [format "goodput_kbps %.3f" [expr {$bytes * 8.0 / ($opt(dur) * 1000.0)}]]
    for {set i 0} {$i <= $h} {incr i} {
        puts "node $i [[$node_($i) set mac_(0)] lred-pacing-stats]"
    }
    puts "ok chain h=$h"
    exit 0
}
$ns_ at [expr {$t0 + $opt(dur)}] "finish"
$ns_ run
