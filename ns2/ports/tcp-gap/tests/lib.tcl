# tcp-gap tests: a wired-cum-wireless scenario builder (sourced by the test scripts).
#
#   gap_scenario <chains> <opts>
#     chains: list of {h dir} (dir down = wired-to-wireless, up = wireless-to-wired);
#             chain k runs along y = k * 400 m, its last relay 200 m from the gateway.
#     opts:   dict-like list: gap 0/1, gc 0/1, pacing 0/1, stop <s>, start <s>,
#             rtg DSDV|AODV, sender Newreno|AP|AP/Gap, seed <n>, gapvars {var val ...}
#   returns an array name (global) with ns, gap, tcp(k), sink(k), W, BS.

if {[catch {Connector/TcpGap info class}]} {
	puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports tcp-gap): no class Connector/TcpGap"
	exit 1
}

proc opt {opts key def} {
	set i [lsearch -exact $opts $key]
	if {$i < 0 || [expr {$i % 2}] == 1} { return $def }
	return [lindex $opts [expr {$i + 1}]]
}

proc gap_scenario {chains opts} {
	global S
	set stop [opt $opts stop 30]
	set start [opt $opts start 5]
	set rtg [opt $opts rtg DSDV]
	set sender [opt $opts sender Newreno]
	ns-random [opt $opts seed 1]
	global defaultRNG
	$defaultRNG seed [opt $opts seed 1]

	Mac/802_11 set dataRate_ 11Mb
	Mac/802_11 set basicRate_ 1Mb
	Mac/802_11 set RTSThreshold_ 0
	Agent/TCP set packetSize_ 1460
	Agent/TCP set window_ 32

	set ns [new Simulator]
	set S(ns) $ns
	$ns node-config -addressType hierarchical
	set nw 0
	foreach c $chains { incr nw [lindex $c 0] }
	AddrParams set domain_num_ 2
	AddrParams set cluster_num_ {1 1}
	AddrParams set nodes_num_ [list 1 [expr {$nw + 1}]]
	set S(trace) [open /dev/null w]
	$ns trace-all $S(trace)

	set xmax 0
	foreach c $chains { if {[lindex $c 0] > $xmax} { set xmax [lindex $c 0] } }
	set topo [new Topography]
	$topo load_flatgrid [expr {$xmax * 200 + 600}] [expr {[llength $chains] * 400 + 600}]
	create-god [expr {$nw + 1}]
	set S(W) [$ns node 0.0.0]
	set chan [new Channel/WirelessChannel]
	$ns node-config -adhocRouting $rtg -llType LL -macType Mac/802_11 \
	    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
	    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \
	    -topoInstance $topo -wiredRouting ON -agentTrace OFF -routerTrace OFF -macTrace OFF
	set S(BS) [$ns node 1.0.0]
	$S(BS) random-motion 0
	# the gateway sits between the chains, 200 m from each chain's last relay
	set gx [expr {$xmax * 200 + 100}]
	set gy [expr {100 + ([llength $chains] - 1) * 200}]
	$S(BS) set X_ $gx
	$S(BS) set Y_ $gy
	$S(BS) set Z_ 0
	$ns node-config -wiredRouting OFF
	set id 1
	set k 0
	foreach c $chains {
		set h [lindex $c 0]
		set y [expr {100 + $k * 400}]
		if {[llength $chains] == 1} { set y $gy }
		for {set j 1} {$j <= $h} {incr j} {
			set n [$ns node 1.0.$id]
			$n random-motion 0
			$n base-station [AddrParams addr2id [$S(BS) node-addr]]
			# j = hops from the gateway; j = h is the chain's end (the TCP entity)
			if {[llength $chains] == 1} {
				$n set X_ [expr {$gx - $j * 200}]
			} else {
				$n set X_ [expr {$gx - ($j - 1) * 200}]
				if {$j == 1} { $n set X_ $gx }
			}
			$n set Y_ $y
			$n set Z_ 0
			set S(node,$k,$j) $n
			incr id
		}
		incr k
	}
	$ns duplex-link $S(W) $S(BS) 10Mb 40ms DropTail
	$ns queue-limit $S(W) $S(BS) 200
	$ns queue-limit $S(BS) $S(W) 200
	if {[opt $opts gap 1]} {
		set S(gap) [$S(BS) tcp-gap]
		foreach {var val} [opt $opts gapvars {}] { $S(gap) set $var $val }
		$S(gap) set gc_ [opt $opts gc 1]
		$S(gap) set pacing_ [opt $opts pacing 1]
	}
	set k 0
	foreach c $chains {
		set h [lindex $c 0]
		set dir [lindex $c 1]
		set far $S(node,$k,$h)
		if {$dir == "down"} {
			set tcp [new Agent/TCP/Newreno]
			$ns attach-agent $S(W) $tcp
			set sink [new Agent/TCPSink]
			$ns attach-agent $far $sink
		} else {
			set tcp [new Agent/TCP/Newreno/$sender]
			if {$sender == "Newreno"} { set tcp [new Agent/TCP/Newreno] }
			$ns attach-agent $far $tcp
			set sink [new Agent/TCPSink]
			$ns attach-agent $S(W) $sink
		}
		$ns connect $tcp $sink
		set ftp [new Application/FTP]
		$ftp attach-agent $tcp
		$ns at $start "$ftp start"
		set S(tcp,$k) $tcp
		set S(sink,$k) $sink
		incr k
	}
	set S(n) $k
	set S(stop) $stop
	set S(start) $start
}

# goodput (bit/s) of chain k from its sink, over [start, stop]
proc gap_goodput {k} {
	global S
	set acked [expr {[$S(tcp,$k) set ack_] + 1}]
	return [expr {$acked * 1460 * 8.0 / ($S(stop) - $S(start))}]
}

proc gap_run {} {
	global S
	$S(ns) at $S(stop) "$S(ns) halt"
	$S(ns) run
}

proc check {cond msg} {
	if {![uplevel 1 [list expr $cond]]} {
		puts "FAIL $msg ($cond)"
		exit 1
	}
}
