# ldm-scenario.tcl -- LDM (Lee et al. 2003) on an AODV chain or Lee's cross, in ns-2.35 with
# hoptcp's port "ldm" (Queue/DropTail/PriQueue/LDM).
#
#   ns ldm-scenario.tcl [key=value ...]
#     topo=chain|cross  hops=7 (chain: h hops, h+1 nodes; cross: arm hops each way, default 6)
#     flows=1 (chain: flows from node 0 to node h; cross: always 2, left->right and top->bottom)
#     mode=off|est|oracle   (off: plain PriQueue and TCP without ECN; est: LDM's estimators;
#                            oracle: LDM with the true h and n given to every node)
#     dur=60 warm=10 seed=1 spacing=200 pkt=1460 win=32 rate=2Mb
#     ecn=0|1 (default 1 unless mode=off)  initial_ttls="30 64 128 255" (ldm-initial-ttls)
#     any LDM variable as var=value, e.g. bits_=64 flow_key_=1 eq4_=1 wmin_rule_=1 policy_=1
# Prints per forwarding node one `ldm node ...` line, per flow one `flow ...` line, and last
# the line `done`. A test script may set the array `opt` and define `ldm_check` before
# sourcing this file; ldm_check is then called with the results and prints the `ok` line.

if {[catch {Queue/DropTail/PriQueue/LDM info class}]} {
    puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports ldm): no class Queue/DropTail/PriQueue/LDM"
    exit 1
}

foreach {k v} {topo chain hops 7 flows 1 mode est dur 60 warm 10 seed 1 spacing 200 pkt 1460
               win 32 rate 2Mb} {
    if {![info exists opt($k)]} { set opt($k) $v }
}
foreach a $argv {
    if {[regexp {^([A-Za-z_][A-Za-z0-9_]*)=(.*)$} $a -> k v]} { set opt($k) $v } else {
        puts stderr "ldm-scenario.tcl: argument '$a' is not key=value"; exit 1
    }
}
if {$opt(topo) == "cross" && ![info exists opt(arm)]} {
    set opt(arm) [expr {[lsearch $argv hops=*] >= 0 ? $opt(hops) : 6}]
}
if {[lsearch {off est oracle} $opt(mode)] < 0} {
    puts stderr "ldm-scenario.tcl: mode=$opt(mode): allowed off, est, oracle"; exit 1
}

global defaultRNG
$defaultRNG seed $opt(seed)
ns-random $opt(seed)

Mac/802_11 set dataRate_ $opt(rate)
Agent/TCP set packetSize_ $opt(pkt)
Agent/TCP set window_ $opt(win)
if {![info exists opt(ecn)]} { set opt(ecn) [expr {$opt(mode) == "off" ? 0 : 1}] }
Agent/TCP set ecn_ $opt(ecn)
Queue/DropTail/PriQueue/LDM set ldm_ [expr {$opt(mode) == "off" ? 0 : 1}]
Queue/DropTail/PriQueue/LDM set oracle_ [expr {$opt(mode) == "oracle" ? 1 : 0}]
foreach k [array names opt *_] {
    Queue/DropTail/PriQueue/LDM set $k $opt($k)
}

# --- topology: positions and flow paths (node lists) ----------------------------------
set pos {}
set paths {}
if {$opt(topo) == "chain"} {
    set h $opt(hops)
    for {set i 0} {$i <= $h} {incr i} { lappend pos [list [expr {$i * $opt(spacing)}] 0] }
    set path {}
    for {set i 0} {$i <= $h} {incr i} { lappend path $i }
    for {set f 0} {$f < $opt(flows)} {incr f} { lappend paths $path }
} elseif {$opt(topo) == "cross"} {
    set a [expr {$opt(arm) / 2}]      ;# nodes each side of the centre
    set h [expr {2 * $a}]
    set s $opt(spacing)
    set horiz {}
    for {set i 0} {$i <= $h} {incr i} { lappend pos [list [expr {$i * $s}] [expr {$a * $s}]]; lappend horiz $i }
    set centre $a
    set vert {}
    for {set j 0} {$j <= $h} {incr j} {
        if {$j == $a} { lappend vert $centre; continue }
        lappend pos [list [expr {$a * $s}] [expr {(2 * $a - $j) * $s}]]
        lappend vert [expr {[llength $pos] - 1}]
    }
    set paths [list $horiz $vert]
    set opt(flows) 2
} else {
    puts stderr "ldm-scenario.tcl: topo=$opt(topo): allowed chain, cross"; exit 1
}
set nn [llength $pos]

# --- the wireless nodes --------------------------------------------------------------
set ns [new Simulator]
set tracefd [open /dev/null w]
$ns trace-all $tracefd
set topo [new Topography]
set maxx [expr {($h + 1) * $opt(spacing)}]
$topo load_flatgrid $maxx $maxx
create-god $nn
set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting AODV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue/LDM -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \
    -topoInstance $topo -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
for {set i 0} {$i < $nn} {incr i} {
    set node($i) [$ns node]
    $node($i) random-motion 0
    $node($i) set X_ [lindex $pos $i 0]
    $node($i) set Y_ [lindex $pos $i 1]
    $node($i) set Z_ 0.0
}

# true h and n per forwarding node (for mode=oracle, and to print beside the estimates)
for {set i 0} {$i < $nn} {incr i} { set trueflows($i) 0; set truehops($i) 0 }
foreach p $paths {
    set hp [expr {[llength $p] - 1}]
    foreach i [lrange $p 1 end-1] { incr trueflows($i); set truehops($i) $hp }
}
for {set i 0} {$i < $nn} {incr i} {
    set q [$node($i) set ifq_(0)]
    $q set oracle_hops_ $truehops($i)
    $q set oracle_flows_ $trueflows($i)
    if {[info exists opt(initial_ttls)]} { eval $q ldm-initial-ttls $opt(initial_ttls) }
}

# --- flows ---------------------------------------------------------------------------
set f 0
foreach p $paths {
    set src [lindex $p 0]; set dst [lindex $p end]
    set tcp($f) [new Agent/TCP/Newreno]
    set sink($f) [new Agent/TCPSink]
    $ns attach-agent $node($src) $tcp($f)
    $ns attach-agent $node($dst) $sink($f)
    $ns connect $tcp($f) $sink($f)
    set ftp($f) [new Application/FTP]
    $ftp($f) attach-agent $tcp($f)
    $ns at [expr {1.0 + 0.1 * $f}] "$ftp($f) start"
    set rttsum($f) 0.0; set rttn($f) 0
    incr f
}

proc sample_rtt {} {
    global ns opt tcp rttsum rttn
    for {set f 0} {$f < $opt(flows)} {incr f} {
        set r [$tcp($f) set rtt_]
        if {$r > 0} {
            set rttsum($f) [expr {$rttsum($f) + $r * [$tcp($f) set tcpTick_]}]
            incr rttn($f)
        }
    }
    set t [expr {[$ns now] + 0.1}]
    if {$t < $opt(dur)} { $ns at $t "sample_rtt" }
}
proc at_warm {} {
    global opt tcp ackwarm node nn
    for {set f 0} {$f < $opt(flows)} {incr f} { set ackwarm($f) [$tcp($f) set ack_] }
    sample_rtt
}
$ns at $opt(warm) "at_warm"

proc finish {} {
    global ns opt tcp ackwarm node nn rttsum rttn truehops trueflows res
    set T [expr {$opt(dur) - $opt(warm)}]
    for {set i 0} {$i < $nn} {incr i} {
        if {$trueflows($i) == 0} { continue }
        set q [$node($i) set ifq_(0)]
        set res(node,$i) [list [$q set pkts_] [$q set ect_pkts_] [$q set decisions_] [$q set marks_] \
            [$q set ce_new_] [$q set last_hops_] [$q set mean_hops_] [$q set last_flows_] \
            [$q set mean_flows_] [$q set mean_pnode_] [$q set data_pkts_] [$q set drops_]]
        puts [format "ldm node %d pkts %d ect %d decisions %d marks %d ce_new %d hops %.3f %.3f flows %.3f %.3f pnode %.6f data %d drops %d true_hops %d true_flows %d" \
            $i {*}$res(node,$i) $truehops($i) $trueflows($i)]
    }
    for {set f 0} {$f < $opt(flows)} {incr f} {
        set acked [expr {[$tcp($f) set ack_] - $ackwarm($f)}]
        set gp [expr {$acked * $opt(pkt) * 8.0 / $T / 1000.0}]
        set rtt [expr {$rttn($f) > 0 ? 1000.0 * $rttsum($f) / $rttn($f) : 0.0}]
        set res(flow,$f) [list $gp $rtt [$tcp($f) set necnresponses_] [$tcp($f) set nrexmitpack_]]
        puts [format "flow %d goodput_kbps %.1f rtt_ms %.1f ecn_responses %d rexmits %d" $f {*}$res(flow,$f)]
    }
    puts "done topo=$opt(topo) hops=$opt(hops) flows=$opt(flows) mode=$opt(mode) seed=$opt(seed) dur=$opt(dur)"
    if {[info procs ldm_check] != ""} { ldm_check }
    $ns halt
}
$ns at $opt(dur) "finish"
$ns run
