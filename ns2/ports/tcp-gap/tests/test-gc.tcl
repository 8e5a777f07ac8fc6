# Goodput Control on two wired-to-wireless flows of unequal length (1 and 4 hops, parallel
# chains): the 1-hop flow gets more than S = 1.1 times the mean and is throttled to the mean;
# right after a round in which a flow was throttled its cap is Gavg / (8 s_data) packets/s.
# The 1-hop flow is capped longer than the 4-hop one. With gc_ 0 nothing is throttled.
source [file join [file dirname [info script]] lib.tcl]
set gc [expr {[llength $argv] > 0 ? [lindex $argv 0] : 1}]
gap_scenario {{1 down} {4 down}} [list stop 100 start 40 gc $gc]
set g $S(gap)
set ::exact 0
proc probe {} {
	global S exact
	set g $S(gap)
	set gavg [$g gw gavg_last]
	if {[info exists ::env(DEBUG)]} { foreach f [$g flows] { puts "t=[$S(ns) now] f=$f g=[$g flow $f goodput_last] gavg=$gavg cap=[$g flow $f cap]" } }
	foreach f [$g flows] {
		set dev [expr {$gavg > 0 ? double([$g flow $f goodput_last]) / $gavg : 0}]
		if {$dev > 1.1 && [$g flow $f dir] == "down" && [$g flow $f cap] > 0} {
			check {abs([$g flow $f cap] - $gavg / (8.0 * 1500)) < 1e-8 * $gavg} "cap = Gavg / (8 s_data) at t=[$S(ns) now]"
			incr exact
		}
	}
}
# the rounds run every 5 s from the first packet (t = 40)
for {set t 45.1} {$t < 100} {set t [expr {$t + 5}]} { $S(ns) at $t probe }
gap_run
$g stats
set f1 [expr {[$g flow 0 hops] == 1 ? 0 : 1}]
set f4 [expr {1 - $f1}]
puts "goodput 1-hop [gap_goodput 0] 4-hop [gap_goodput 1]"
if {$gc} {
	check {[$g gw gc_rounds] >= 11} "rounds every 5 s"
	check {[$g flow $f1 throttles] >= 1} "the fast flow is throttled"
	check {$exact >= 1} "a cap checked right after its round"
	check {[$g flow $f1 throttled_time] > [$g flow $f4 throttled_time]} "the fast flow is capped longer than the slow one"
	check {[$g flow $f1 throttled_time] > 0} "time with a cap"
} else {
	check {[$g flow 0 throttles] + [$g flow 1 throttles] == 0} "gc_ 0: no throttling"
	check {[$g gw gc_rounds] == 0} "gc_ 0: no rounds"
}
puts "ok gc=$gc throttles=[$g flow $f1 throttles] cap_avg=[$g flow $f1 cap_avg] exact=$exact"
