# A chain of 802.11 nodes running AODV in ns-2.35, matched to hoptcp's
# default profile (two-ray ground, 2 Mb/s data, 1 Mb/s basic rate, RTS/CTS,
# 50-packet PriQueue, TCP NewReno + one-ACK-per-packet sink).
#
#   ns chain.tcl -seed 1 -hops 7 -duration 300 -traffic tcp -window 32 \
#                -flows 1 -rate 0 -payload 1460 -trace out.tr
#
# Also: -datarate / -basicrate (Mb/s, default 2 / 1), -short_retry /
# -long_retry (default 7 / 4), -spacing (m, default 200), -mactrace ON|OFF.
#
# -traffic tcp: -flows FTP/NewReno flows from node 0 to the last node.
# -traffic cbr: -flows CBR flows of -rate bit/s of payload (-payload bytes);
#   ns-2's UDP agent carries no header and AODV adds 20 B of IP header to
#   non-TCP packets, so packetSize_ = payload + 8 gives the same 28 B of
#   UDP/IP header as hoptcp. The CBR interval is packetSize_·8/rate_, so
#   rate_ is scaled by (payload + 8)/payload to send hoptcp's packet rate,
#   and the UDP agent's own packetSize_ (default 1000) is raised so that it
#   does not split the packets.
# A one-packet CBR warm-up from node 0 to the last node at t = 1 s
# resolves ARP and the routes before the flows start at t = 2 s (ns-2's ARP
# holds one packet per unresolved neighbour and drops the rest); hoptcp's
# scenarios send the same warm-up packet.

set opt(seed) 1
set opt(hops) 7
set opt(spacing) 200
set opt(duration) 300
set opt(traffic) tcp
set opt(window) 32
set opt(flows) 1
set opt(rate) 0
set opt(payload) 1460
set opt(rtg) AODV
set opt(datarate) 2
set opt(basicrate) 1
set opt(short_retry) 7
set opt(long_retry) 4
set opt(trace) out.tr
set opt(mactrace) OFF

for {set i 0} {$i < $argc} {incr i 2} {
    set key [string range [lindex $argv $i] 1 end]
    set opt($key) [lindex $argv [expr $i + 1]]
}

global defaultRNG
$defaultRNG seed $opt(seed)

Mac/802_11 set dataRate_ [expr $opt(datarate) * 1e6]
Mac/802_11 set basicRate_ [expr $opt(basicrate) * 1e6]
Mac/802_11 set RTSThreshold_ 0
Mac/802_11 set ShortRetryLimit_ $opt(short_retry)
Mac/802_11 set LongRetryLimit_ $opt(long_retry)
Phy/WirelessPhy set Pt_ 0.28183815
Phy/WirelessPhy set freq_ 914e+6
Phy/WirelessPhy set RXThresh_ 3.652e-10
Phy/WirelessPhy set CSThresh_ 1.559e-11
Phy/WirelessPhy set CPThresh_ 10.0
Phy/WirelessPhy set L_ 1.0
Queue/DropTail/PriQueue set Prefer_Routing_Protocols 1
Agent/TCP set packetSize_ $opt(payload)
Agent/TCP set window_ $opt(window)

set n [expr $opt(hops) + 1]
set ns_ [new Simulator]
set tracefd [open $opt(trace) w]
$ns_ trace-all $tracefd

set topo [new Topography]
$topo load_flatgrid [expr $opt(hops) * $opt(spacing) + 200] 200
create-god $n

$ns_ node-config -adhocRouting $opt(rtg) \
    -llType LL -macType Mac/802_11 -ifqType Queue/DropTail/PriQueue -ifqLen 50 \
    -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy -channel [new Channel/WirelessChannel] -topoInstance $topo \
    -agentTrace ON -routerTrace ON -macTrace $opt(mactrace) -movementTrace OFF

for {set i 0} {$i < $n} {incr i} {
    set node($i) [$ns_ node]
    $node($i) random-motion 0
    $node($i) set X_ [expr 100.0 + $i * $opt(spacing)]
    $node($i) set Y_ 100.0
    $node($i) set Z_ 0.0
}
set last [expr $n - 1]

# Warm-up packet (see above).
set wu [new Agent/UDP]
set wus [new Agent/Null]
$ns_ attach-agent $node(0) $wu
$ns_ attach-agent $node($last) $wus
$ns_ connect $wu $wus
set wuc [new Application/Traffic/CBR]
$wuc set packetSize_ [expr 64 + 8]
$wuc set maxpkts_ 1
$wuc attach-agent $wu
$ns_ at 1.0 "$wuc start"

for {set f 0} {$f < $opt(flows)} {incr f} {
    if {$opt(traffic) == "tcp"} {
        set src [new Agent/TCP/Newreno]
        set dst [new Agent/TCPSink]
        $ns_ attach-agent $node(0) $src
        $ns_ attach-agent $node($last) $dst
        $ns_ connect $src $dst
        set app [new Application/FTP]
        $app attach-agent $src
    } else {
        set src [new Agent/UDP]
        $src set packetSize_ [expr $opt(payload) + 8]
        set dst [new Agent/Null]
        $ns_ attach-agent $node(0) $src
        $ns_ attach-agent $node($last) $dst
        $ns_ connect $src $dst
        set app [new Application/Traffic/CBR]
        $app set packetSize_ [expr $opt(payload) + 8]
        $app set rate_ [expr $opt(rate) * ($opt(payload) + 8.0) / $opt(payload)]
        $app attach-agent $src
    }
    $ns_ at 2.0 "$app start"
}

$ns_ at $opt(duration) "finish"
proc finish {} {
    global ns_ tracefd
    $ns_ flush-trace
    close $tracefd
    exit 0
}
$ns_ run
