# pacing_ 0: the gateway still measures (RTT samples, h, R) but never holds a packet.
source [file join [file dirname [info script]] lib.tcl]
gap_scenario {{3 down}} {stop 80 start 40 pacing 0}
gap_run
set g $S(gap)
$g stats
check {[$g flow 0 rtt_samples] > 50} "measures without pacing"
check {[$g flow 0 hops] == 3} "h = 3"
check {[$g flow 0 rate] > 0} "R computed"
check {[$g flow 0 qmax] == 1 && [$g flow 0 qlen] == 0} "no packet held"
check {[$g flow 0 rate_avg] == 0} "no paced rate averaged"
puts "ok pacing-off rate=[$g flow 0 rate]"
