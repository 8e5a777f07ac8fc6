# ns-2.35: one saturated CBR sender, one hop of 200 m, RTS/CTS, 1460-byte IP
# packets (DumbAgent adds no header), measured from 1 s to 60 s.
# Usage: ns single-hop.tcl DATARATE BASICRATE   (e.g. 54Mb 1Mb)
# hoptcp's counterpart: radio.standard = "ns2_g" (or "dsss" up to 11 Mb/s),
# a UDP flow of packet_bytes = 1432 (+28 B UDP/IP = 1460).
set data [lindex $argv 0]
set basic [lindex $argv 1]
set ns [new Simulator]
set tr [open /dev/null w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid 1000 1000
create-god 2
Mac/802_11 set dataRate_ $data
Mac/802_11 set basicRate_ $basic
Mac/802_11 set RTSThreshold_ 0
Phy/WirelessPhy set CSThresh_ 1.559e-11
Phy/WirelessPhy set RXThresh_ 3.652e-10
Queue/DropTail/PriQueue set limit_ 50
$ns node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 \
  -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
  -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel [new Channel/WirelessChannel] \
  -topoInstance $topo -agentTrace OFF -routerTrace OFF -macTrace OFF
set n0 [$ns node]
set n1 [$ns node]
$n0 set X_ 0; $n0 set Y_ 0; $n0 set Z_ 0
$n1 set X_ 200; $n1 set Y_ 0; $n1 set Z_ 0
set udp [new Agent/UDP]
$udp set packetSize_ 1600
$ns attach-agent $n0 $udp
set sink [new Agent/LossMonitor]
$ns attach-agent $n1 $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 1460
$cbr set rate_ 100Mb
$cbr attach-agent $udp
$ns at 0.0 "$cbr start"
proc finish {} {
  global sink
  set b [$sink set bytes_]
  puts "[lindex $::argv 0] [lindex $::argv 1] packets [$sink set npkts_] per_s [expr [$sink set npkts_]/59.0] goodput_bps [expr $b*8.0/59.0]"
  flush stdout
  exit 0
}
$ns at 1.0 "$sink set bytes_ 0; $sink set npkts_ 0"
$ns at 60.0 "finish"
$ns run
