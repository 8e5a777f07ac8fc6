# aodv-bs test: a wireless chain of h hops to a base station BS, a wired host W behind it
# (W --10Mb/40ms-- BS ~~ n1 ~~ n2 ~~ ... ~~ nh, 200 m apart), AODV in the wireless domain,
# NewReno FTP from nh to W (up), from W to nh (down), or both at once.
#   ns chain-bs.tcl [h 3] [dir both|up|down] [stop 30] [gw 1] [expect pos|zero] [rate 2Mb]
# expect pos: every flow must have goodput > 0 (last line "ok ...");
# Both: the BS's bs-hops to the far node, sampled every second, is h or -1 (some h).
# expect zero: with gw 0 (ns-2.35's AODV unchanged) every flow must have goodput 0.
if {[catch {Agent/AODV set bs_gateway_}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports aodv-bs): no Agent/AODV bs_gateway_"; exit 1}

# ns-2's C code prints a few lines on stdout through stdio, flushed only at exit (after the
# script's own lines when stdout is a pipe): the script runs itself in a child and prints
# the child's verdict last.
if {![info exists env(AODV_BS_CHILD)]} {
    set env(AODV_BS_CHILD) 1
    set rc [catch {exec [info nameofexecutable] [info script] {*}$argv 2>@1} out]
    set verdict {}
    foreach l [split $out "\n"] {
        if {[string match "ok *" $l] || [string match "FAIL*" $l]} { lappend verdict $l } else { puts $l }
    }
    foreach l $verdict { puts $l }
    exit [expr {$rc ? 1 : 0}]
}

array set opt {h 3 dir both stop 30 gw 1 expect pos rate 2Mb start 1.0}
foreach {k v} $argv { set opt($k) $v }

Mac/802_11 set RTSThreshold_ 0
Mac/802_11 set dataRate_ $opt(rate)
Mac/802_11 set basicRate_ 1Mb
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 32
Agent/AODV set bs_gateway_ $opt(gw)

set ns [new Simulator]
$ns node-config -addressType hierarchical
AddrParams set domain_num_ 2
AddrParams set cluster_num_ {1 1}
AddrParams set nodes_num_ [list 1 [expr {$opt(h) + 1}]]

set tracefd [open /dev/null w]
$ns trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid [expr {200 * $opt(h) + 400}] 400
create-god [expr {$opt(h) + 1}]

set W [$ns node 0.0.0]
$ns node-config -adhocRouting AODV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channel [new Channel/WirelessChannel] -topoInstance $topo \
    -wiredRouting ON -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
set BS [$ns node 1.0.0]
$BS set X_ 100.0; $BS set Y_ 200.0; $BS set Z_ 0.0
$ns node-config -wiredRouting OFF
for {set i 1} {$i <= $opt(h)} {incr i} {
    set n($i) [$ns node 1.0.$i]
    $n($i) base-station [AddrParams addr2id [$BS node-addr]]
    $n($i) set X_ [expr {100.0 + 200.0 * $i}]; $n($i) set Y_ 200.0; $n($i) set Z_ 0.0
}
$ns duplex-link $W $BS 10Mb 40ms DropTail

set far $n($opt(h))
set flows {}
proc ftp {name src dst} {
    global ns opt flows
    set tcp [new Agent/TCP/Newreno]
    set sink [new Agent/TCPSink]
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set f [new Application/FTP]
    $f attach-agent $tcp
    $ns at $opt(start) "$f start"
    lappend flows [list $name $tcp]
}
if {$opt(dir) == "up" || $opt(dir) == "both"} { ftp up $far $W }
if {$opt(dir) == "down" || $opt(dir) == "both"} { ftp down $W $far }

# TCP-GAP's h at the gateway: the BS's AODV route to the far node, sampled every second
set hops {}
proc sample {} {
    global ns BS far hops
    lappend hops [[$BS set ragent_] bs-hops [$far node-addr]]
    $ns at [expr {[$ns now] + 1.0}] "sample"
}
$ns at [expr {$opt(start) + 1.0}] "sample"

proc finish {} {
    global ns opt flows BS n hops
    set bad 0
    set dur [expr {$opt(stop) - $opt(start)}]
    foreach fl $flows {
        lassign $fl name tcp
        set acked [$tcp set ack_]
        if {$acked < 0} { set acked 0 }
        set gp [expr {$acked * 1460 * 8.0 / $dur}]
        puts [format "flow %s acked %d goodput %.0f bit/s" $name $acked $gp]
        if {$opt(expect) == "pos" && $gp <= 0} { set bad 1 }
        if {$opt(expect) == "zero" && $gp > 0} { set bad 1 }
    }
    set ra [$BS set ragent_]
    puts "BS bs_down_buf_=[$ra set bs_down_buf_] bs_down_fwd_=[$ra set bs_down_fwd_] bs_up_fwd_=[$ra set bs_up_fwd_]"
    for {set i 1} {$i <= $opt(h)} {incr i} {
        set ra [$n($i) set ragent_]
        puts "n$i bs_up_fwd_=[$ra set bs_up_fwd_] bs_up_buf_=[$ra set bs_up_buf_] bs_up_drop_=[$ra set bs_up_drop_] bs_down_buf_=[$ra set bs_down_buf_]"
    }
    # with gw 1 and traffic, every sample is h or -1 (route down), and some is h
    set other 0; set seen 0
    foreach x $hops { if {$x == $opt(h)} { incr seen } elseif {$x != -1} { incr other } }
    puts "BS bs-hops samples: [llength $hops], = h: $seen, other: $other"
    if {$opt(expect) == "pos" && ($seen == 0 || $other > 0)} { set bad 1 }
    if {$bad} {
        puts "FAIL h=$opt(h) dir=$opt(dir) gw=$opt(gw) expect=$opt(expect)"
        exit 1
    }
    puts "ok chain-bs h=$opt(h) dir=$opt(dir) gw=$opt(gw) expect=$opt(expect)"
    exit 0
}
$ns at $opt(stop) "finish"
$ns run
